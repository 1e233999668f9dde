//! The server endpoint lists the peers whose session changed only once
//! asked to, and then every one it drained or forgot since the last look.

mod common;

use common::*;
use dtls::Config;

#[test]
fn changed_sessions_are_listed_once_watched_and_taken_once() {
    let mut p = Pair::psk(Config::default(), Config::default(), 27);
    p.run_until(0, |p| !p.c2s.is_empty());
    assert!(p.server.take_changed().is_empty(), "not watched: no list");
    p.server.watch_changes();
    p.handshake();
    assert!(p.server_established());
    let changed = p.server.take_changed();
    assert!(changed.contains(&client_addr()), "{changed:?}");
    assert!(changed.iter().all(|a| *a == client_addr()), "{changed:?}");
    assert!(p.server.take_changed().is_empty(), "taken: empty again");
    // drained with its close_notify, then forgotten: listed, perhaps twice
    p.server.close(client_addr());
    assert!(p.server.session(&client_addr()).is_none());
    let mut changed = p.server.take_changed();
    changed.dedup();
    assert_eq!(changed, [client_addr()]);
}
