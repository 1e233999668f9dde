//! The dtlsim discrete-event simulator.
//!
//! Virtual time is an integer count of microseconds ([`Time`]); events at the
//! same time run in the order they were scheduled ([`queue`]); every random
//! draw comes from a stream named by (seed, replication, node, purpose)
//! ([`rng`]), so a replication gives the same result alone, in any order, on
//! any worker. Energy is accounted as Contiki's Energest does ([`energy`]).
//!
//! The floors, each using only those below it (`tests/floors.rs` checks the
//! sources): the event [`queue`], [`timer`]s, [`clock`]s and random streams;
//! the [`topology`], the signal physics of [`radio`], replayed testbed
//! traces ([`k7`]), the [`channel`] and
//! the [`world`] of radios and energy meters, with its [`trace`]; the MACs
//! ([`mac`]) and the network layer
//! ([`net`]); a node's CPU and application interface ([`node`]) and the
//! [`engine`] that stacks them. Above: the applications and their records
//! ([`app`]), the [`workload`]s, a replication ([`run`]) and its result
//! rows ([`row`], [`columns`]) with the per-node table beside them
//! ([`node_rows`]), and what a capture of it holds ([`capture`]).

pub mod app;
pub mod capture;
pub mod census;
pub mod channel;
pub mod clock;
pub mod columns;
pub mod energy;
pub mod engine;
pub mod k7;
pub mod mac;
pub mod medium;
pub mod net;
pub mod node;
pub mod node_rows;
pub mod power_on;
pub mod queue;
pub mod radio;
pub mod rng;
pub mod row;
pub mod rpl;
pub mod run;
pub mod scenario;
pub mod slot_probe;
pub mod timer;
pub mod topology;
pub mod trace;
pub mod workload;
pub mod world;

/// Virtual time in microseconds since the start of a replication.
pub type Time = u64;

/// Index of a node in a topology.
pub type NodeId = usize;
