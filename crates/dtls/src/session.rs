//! What a connection of either version is to its caller: the events it
//! reports, its side and its life-cycle phase.

use crate::alert::Alert;
use crate::error::Error;

/// Something the application should know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The handshake completed; application data may flow.
    Connected,
    /// Application data from the peer.
    ApplicationData(Vec<u8>),
    /// The peer sent an alert (warning or fatal; a fatal one is followed by
    /// [`Event::Failed`], a close_notify by [`Event::Closed`]).
    AlertReceived(Alert),
    /// The connection was closed by close_notify (either side).
    Closed,
    /// The connection failed; nothing more will be sent or received.
    Failed(Error),
}

/// Which side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Client.
    Client,
    /// Server.
    Server,
}

/// Connection life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Handshake under way.
    Handshaking,
    /// Application data may flow.
    Established,
    /// Closed by close_notify.
    Closed,
    /// Failed (alert sent or received, timeout).
    Failed,
}
