//! A node above its radio: the CPU that does its computing ([`cpu`]).
pub mod cpu;
