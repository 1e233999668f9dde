//! A sweep unit as it is kept: its tables (`tables`: the simulator's
//! columns with the point's parameters in front and what the sweep adds)
//! and their Parquet file (`parquet_file`); and a run's result files made
//! from its units (`results`, with the tidy form: `tidy`, `tidy_file`). The core writes
//! them itself, so a run needs no Arrow library in Python to keep its
//! results.

pub mod parquet_file;
pub mod results;
pub mod tables;
pub mod tidy;
pub mod tidy_file;
