//! CoAP over UDP (RFC 7252), sans-IO: the message format ([`message`]),
//! confirmable retransmission ([`reliability`]), and what OSCORE (RFC 8613)
//! adds to a message ([`oscore`]), and the CoJP join objects carried over
//! it ([`cojp`], RFC 9031) with the exchange that carries them ([`join`]).
//! Nothing here reads a clock or touches a
//! socket: time and random draws are the caller's.

pub mod cojp;
pub mod join;
pub mod message;
pub mod oscore;
pub mod reliability;
