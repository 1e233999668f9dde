//! A sweep unit as it is kept: its tables (`tables`: the simulator's
//! columns with the point's parameters in front and what the sweep adds)
//! and their Parquet file (`parquet_file`). The core writes a unit's files
//! itself, so a run needs no Arrow library in Python to keep its results.

pub mod parquet_file;
pub mod tables;
