//! A node above its network layer: the interface its application runs
//! behind ([`app`]) and the CPU that does its computing ([`cpu`]).

pub mod app;
pub mod cpu;
