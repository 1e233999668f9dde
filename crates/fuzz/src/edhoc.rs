//! EDHOC (RFC 9528): the responder fed the fuzzer's bytes as message_1
//! (a fresh responder) and as message_3 (one that answered a real
//! initiator's message_1). lakers 0.8 panicked on some message_3s; the
//! `edhoc` crate refuses them at its boundary, so nothing panics here.

use edhoc::{Config, Initiator, Responder};

/// The first byte chooses: even, the rest is message_1; odd, message_3.
/// Never a panic; the responder is done exactly when its message_3 was
/// accepted.
pub fn responder(data: &[u8]) {
    let Some((&choice, message)) = data.split_first() else {
        return;
    };
    let mut r = Responder::new(Config::default(), 2).expect("a supported configuration");
    if choice % 2 == 0 {
        let _ = r.handle_message_1(message);
        return;
    }
    let mut i = Initiator::new(Config::default(), 1).expect("a supported configuration");
    let m1 = i.message_1().expect("message_1");
    r.handle_message_1(&m1).expect("the initiator's message_1");
    let accepted = r.handle_message_3(message).is_ok();
    assert_eq!(accepted, r.is_done());
}
