//! parq datasets as DataFusion tables.
//!
//! [`ParqTable`] is a DataFusion [`TableProvider`](datafusion::datasource::TableProvider)
//! over a parq [`Dataset`](parq::dataset::Dataset): one file, a directory, a glob, a list of
//! paths or an object store's URL, with hive partitions. DataFusion gives it the columns a
//! query needs, its filters and its limit; parq prunes files, row groups and pages by them,
//! filters rows inside the read, and reads the row groups left in DataFusion's target
//! partitions. The planner gets row counts, null counts and min / max from the footers.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use datafusion::prelude::SessionContext;
//! use parq::dataset::DatasetOptions;
//! use parq_datafusion::ParqTable;
//!
//! # async fn run() -> datafusion::common::Result<()> {
//! let ctx = SessionContext::new();
//! ctx.register_table("lineitem", Arc::new(ParqTable::open("tpch/lineitem/", DatasetOptions::default())?))?;
//! ctx.sql("SELECT l_returnflag, count(*) FROM lineitem WHERE l_shipdate < DATE '1995-01-01' GROUP BY 1")
//!     .await?
//!     .show()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! DataFusion 55 is on arrow 59 and parq on arrow 60: schemas and batches cross between
//! them through the Arrow C Data Interface without a copy ([`bridge`]).
//!
//! - `provider.rs`: the table, filter pushdown and scan planning; `expr.rs`: which
//!   DataFusion filters parq answers exactly, as parq predicates.
//! - `exec.rs`: the execution plan and its partitions; `stats.rs`: statistics from footers.
//! - [`tpch`]: TPC-H tables written by parq and the 22 queries, run on both readers.

pub mod bridge;
mod exec;
mod expr;
mod provider;
mod stats;
pub mod tpch;

pub use exec::ParqExec;
pub use expr::to_predicate;
pub use provider::ParqTable;

use datafusion::common::DataFusionError;

/// A parq error as DataFusion's (kept whole, so callers can downcast it to [`parq::Error`]).
pub(crate) fn error(e: parq::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
