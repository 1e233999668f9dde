//! DTLS 1.2 record layer: header codec and AEAD or CBC/HMAC protection
//! (the anti-replay window is shared: [`crate::replay`]).

pub mod header;
pub mod protection;

pub use header::{ContentType, RecordHeader, RECORD_HEADER_LEN};
pub use protection::RecordKeys;
