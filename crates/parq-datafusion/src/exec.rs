//! [`ParqExec`]: the execution plan of a [`crate::ParqTable`] scan, its row groups split
//! into partitions, each read by parq on a blocking task.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{ColumnStatistics, Result, Statistics};
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::execution_plan::{
    Boundedness, EmissionType, ReplaceChildrenOptions,
};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream, StatisticsArgs,
};
use parq::dataset::Dataset;
use parq::format::metadata::FileMetaData;
use parq::Predicate;

use crate::{bridge, error};

/// What every partition of a scan reads.
#[derive(Debug, Clone)]
pub(crate) struct ScanPlan {
    pub(crate) dataset: Arc<Dataset>,
    /// The columns read, by name, in the output's order.
    pub(crate) columns: Vec<String>,
    /// The pushed filters, united.
    pub(crate) filter: Option<Predicate>,
    /// The most rows the scan gives.
    pub(crate) limit: Option<usize>,
    /// The table's schema, and the indices of the columns read in it.
    pub(crate) table_schema: SchemaRef,
    pub(crate) indices: Vec<usize>,
    /// The pushed filters as DataFusion's physical expression over the table's schema, and
    /// the default selectivity: what DataFusion's estimate of the rows left is made from.
    pub(crate) estimate: Option<(Arc<dyn PhysicalExpr>, u8)>,
}

/// One row group of one file of the dataset.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    /// The file's index in the dataset.
    pub(crate) file: usize,
    pub(crate) row_group: usize,
    pub(crate) rows: u64,
    pub(crate) meta: Arc<FileMetaData>,
}

/// A parq scan as a DataFusion execution plan.
#[derive(Debug)]
pub struct ParqExec {
    plan: ScanPlan,
    schema: SchemaRef,
    /// The row groups of each partition, in dataset order.
    partitions: Vec<Vec<Unit>>,
    properties: Arc<PlanProperties>,
}

impl ParqExec {
    pub(crate) fn new(plan: ScanPlan, schema: SchemaRef, units: Vec<Unit>, target: usize) -> Self {
        let units = match (plan.limit, &plan.filter) {
            (Some(limit), None) => enough_for(units, limit as u64),
            _ => units,
        };
        let partitions = split(units, target, |u| u.rows);
        let properties = PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(partitions.len().max(1)),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        ParqExec {
            plan,
            schema,
            partitions,
            properties: Arc::new(properties),
        }
    }

    /// The row groups of each partition, as (file index, row group) pairs.
    pub fn partitions(&self) -> Vec<Vec<(usize, usize)>> {
        self.partitions
            .iter()
            .map(|p| p.iter().map(|u| (u.file, u.row_group)).collect())
            .collect()
    }

    fn units(&self, partition: Option<usize>) -> Vec<&Unit> {
        match partition {
            Some(p) => self
                .partitions
                .get(p)
                .map(|u| u.iter().collect())
                .unwrap_or_default(),
            None => self.partitions.iter().flatten().collect(),
        }
    }
}

impl ParqExec {
    /// The statistics of a filtered scan: those of the row groups read, narrowed by
    /// DataFusion's own estimate of what the filters leave (`FilterExec`'s, from the
    /// columns' bounds where it can, else the default selectivity).
    fn filtered_statistics(
        &self,
        groups: crate::stats::Selection<'_>,
        predicate: &Arc<dyn PhysicalExpr>,
        selectivity: u8,
        args: &StatisticsArgs,
    ) -> Result<Statistics> {
        let table = Arc::clone(&self.plan.table_schema);
        let all = Arc::new(crate::stats::statistics(groups, &table, false));
        let filter = FilterExec::try_new(Arc::clone(predicate), Arc::new(EmptyExec::new(table)))?
            .with_default_selectivity(selectivity)?;
        let narrowed = filter.statistics_from_inputs(&[Arc::clone(&all)], args)?;
        let fraction = match (narrowed.num_rows.get_value(), all.num_rows.get_value()) {
            (Some(&left), Some(&rows)) if rows > 0 => left as f64 / rows as f64,
            _ => 1.0,
        };
        let indices = &self.plan.indices;
        let bytes: usize = indices
            .iter()
            .filter_map(|&i| all.column_statistics.get(i)?.byte_size.get_value().copied())
            .sum();
        let columns = indices
            .iter()
            .map(|&i| {
                narrowed
                    .column_statistics
                    .get(i)
                    .cloned()
                    .unwrap_or_else(ColumnStatistics::new_unknown)
            })
            .collect();
        Ok(Statistics {
            num_rows: narrowed.num_rows.to_inexact(),
            total_byte_size: Precision::Inexact((bytes as f64 * fraction) as usize),
            column_statistics: columns,
        })
    }
}

/// The first row groups that hold `limit` rows (all of them when they hold fewer).
fn enough_for(units: Vec<Unit>, limit: u64) -> Vec<Unit> {
    let mut rows = 0u64;
    let mut out = Vec::new();
    for u in units {
        if rows >= limit {
            break;
        }
        rows += u.rows;
        out.push(u);
    }
    out
}

/// `units` in at most `target` contiguous runs of about equal rows (`rows_of` each): a run
/// closes once it holds its share of the rows, or when each unit left must start a run of
/// its own for every run to get one.
fn split<T>(units: Vec<T>, target: usize, rows_of: impl Fn(&T) -> u64) -> Vec<Vec<T>> {
    let total: u64 = units.iter().map(&rows_of).sum();
    let target = target.clamp(1, units.len().max(1));
    let share = total.div_ceil(target as u64).max(1);
    let count = units.len();
    let mut out: Vec<Vec<T>> = Vec::new();
    let mut current: Vec<T> = Vec::new();
    let mut rows = 0u64;
    for (i, u) in units.into_iter().enumerate() {
        let runs_left = target - out.len() - 1;
        if !current.is_empty() && runs_left > 0 && (rows >= share || count - i <= runs_left) {
            out.push(std::mem::take(&mut current));
            rows = 0;
        }
        rows += rows_of(&u);
        current.push(u);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

impl DisplayAs for ParqExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let groups: usize = self.partitions.iter().map(Vec::len).sum();
        write!(
            f,
            "ParqExec: files={}, row_groups={groups}, partitions={}, columns=[{}]",
            self.plan.dataset.files().len(),
            self.partitions.len(),
            self.plan.columns.join(", ")
        )?;
        if let Some(filter) = &self.plan.filter {
            write!(f, ", filter={filter}")?;
        }
        if let Some(limit) = self.plan.limit {
            write!(f, ", limit={limit}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for ParqExec {
    fn name(&self) -> &str {
        "ParqExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
        _options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let selection: Vec<(usize, Vec<usize>)> = self
            .units(Some(partition))
            .iter()
            .map(|u| (u.file, vec![u.row_group]))
            .collect();
        let plan = self.plan.clone();
        let schema = Arc::clone(&self.schema);
        let mut builder = RecordBatchReceiverStreamBuilder::new(Arc::clone(&schema), 2);
        let tx = builder.tx();
        builder.spawn_blocking(move || {
            if selection.is_empty() {
                return Ok(());
            }
            let mut scan = plan
                .dataset
                .scan()
                .with_columns(plan.columns.iter().cloned())
                .with_row_groups(selection)
                .with_threads(1);
            if let Some(f) = plan.filter.clone() {
                scan = scan.with_filter(f);
            }
            let mut left = plan.limit.unwrap_or(usize::MAX);
            for batch in scan.batches().map_err(error)? {
                if left == 0 {
                    break;
                }
                let mut batch = batch.map_err(error)?;
                if batch.num_rows() > left {
                    batch = batch.slice(0, left);
                }
                left -= batch.num_rows();
                let batch = bridge::batch_to_df(batch, &schema)?;
                if tx.blocking_send(Ok(batch)).is_err() {
                    break;
                }
            }
            Ok(())
        });
        Ok(builder.build())
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        let mut groups: Vec<(Arc<FileMetaData>, Vec<usize>)> = Vec::new();
        for u in self.units(args.partition()) {
            match groups.last_mut() {
                Some((meta, rgs)) if Arc::ptr_eq(meta, &u.meta) => rgs.push(u.row_group),
                _ => groups.push((Arc::clone(&u.meta), vec![u.row_group])),
            }
        }
        let stats = match &self.plan.estimate {
            None => crate::stats::statistics(&groups, &self.schema, self.plan.filter.is_some()),
            Some((predicate, selectivity)) => {
                self.filtered_statistics(&groups, predicate, *selectivity, args)?
            }
        };
        let stats = match self.plan.limit {
            Some(limit) => stats.with_fetch(Some(limit), 0, 1)?,
            None => stats,
        };
        Ok(Arc::new(stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(rows: &[u64], target: usize) -> Vec<Vec<usize>> {
        let units: Vec<(usize, u64)> = rows.iter().copied().enumerate().collect();
        split(units, target, |u| u.1)
            .iter()
            .map(|p| p.iter().map(|u| u.0).collect())
            .collect()
    }

    #[test]
    fn partitions_balance_rows_in_order() {
        assert_eq!(runs(&[10, 10, 10, 10], 2), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(runs(&[10, 10], 4), vec![vec![0], vec![1]]);
        assert_eq!(runs(&[30, 5, 5, 5], 2), vec![vec![0], vec![1, 2, 3]]);
        assert_eq!(runs(&[5, 5, 5, 30], 2), vec![vec![0, 1, 2], vec![3]]);
        assert!(runs(&[], 3).is_empty());
    }
}
