//! Applications: what runs on top of UDP on each node, behind the
//! engine's [`App`](crate::node::app::App) interface, reporting
//! [`Record`]s.

pub mod coap_server;
pub mod cojp;
pub mod dtls;
pub mod dtls_trace;
pub mod dtls_version;
pub mod echo;
pub mod edhoc;
pub mod frames;
pub mod join_proxy;
pub mod pause;
pub mod periodic;
pub mod record;
pub mod sessions;

use record::Record;

/// The well-known DTLS port (CoAPs).
pub const DTLS_PORT: u16 = 5684;
/// Port of the ping-like echo service.
pub const ECHO_PORT: u16 = 7;

/// An application's view of its node (see [`crate::node::app::AppCx`]),
/// reporting this floor's records.
pub type AppCx<'a> = crate::node::app::AppCx<'a, Record>;

#[cfg(test)]
pub(crate) mod test_support {
    //! What the applications' unit tests share.

    use super::record::Record;
    use super::AppCx;
    use crate::net::Udp;
    use crate::node::app::Recorder;
    use crate::world::World;
    use crate::NodeId;

    /// Run `f` as `node`'s application and return the datagrams it sent.
    pub fn sent(
        world: &mut World,
        recorder: &mut Recorder<Record>,
        node: NodeId,
        f: impl FnOnce(&mut AppCx),
    ) -> Vec<Udp> {
        let mut out = Vec::new();
        f(&mut AppCx::new(world.cx(node), &mut out, recorder));
        out
    }

    /// A CoJP pledge's parameters for the JRC at `jrc` through `proxy`:
    /// CoAP's default timers, a 2-byte token, free crypto, a 1 s pause
    /// after a failed join, starting at once.
    pub fn pledge_params(jrc: NodeId, proxy: Option<NodeId>) -> super::cojp::PledgeParams {
        super::cojp::PledgeParams {
            jrc,
            proxy,
            setup: super::cojp::CojpSetup {
                coap: coap::reliability::Params::default(),
                token_bytes: 2,
            },
            first_at: 0,
            retry: crate::app::pause::Pause::fixed(1_000_000),
            cost: crate::node::cpu::CryptoCost::default(),
            seed: 1,
            replication: 0,
            timer_tick_us: 0,
        }
    }
}
