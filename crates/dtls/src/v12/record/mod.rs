//! DTLS 1.2 record layer: header codec, AEAD protection, anti-replay window.

pub mod header;
pub mod protection;
pub mod replay;

pub use header::{ContentType, RecordHeader, RECORD_HEADER_LEN};
pub use protection::RecordKeys;
pub use replay::ReplayWindow;
