//! [`ParqTable`]: a parq dataset as a DataFusion table.
//!
//! Planning a scan reads the footers (the dataset's metadata cache keeps them), prunes files
//! by partition values and row groups by statistics with the pushed filters, and splits the
//! row groups left into DataFusion's target partitions, balanced by rows. Each partition is
//! read by parq (filters and late materialization inside each file) on a blocking task, and
//! its batches cross to DataFusion's arrow without a copy.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::{DFSchema, DataFusionError, Result};
use datafusion::datasource::{TableProvider, TableType};
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use parq::dataset::{Dataset, DatasetOptions, DatasetSource};
use parq::read::StringType;
use parq::Predicate;

use crate::exec::{ParqExec, ScanPlan, Unit};
use crate::expr::to_predicate;
use crate::{bridge, error};

/// A parq [`Dataset`] (one file, a directory, a glob, a list of paths or an object store's
/// URL, with hive partitions) as a DataFusion [`TableProvider`].
#[derive(Debug)]
pub struct ParqTable {
    dataset: Arc<Dataset>,
    schema: SchemaRef,
}

impl ParqTable {
    /// Opens `source` with `options` as DataFusion reads tables by default: strings as
    /// `Utf8View`, batches of 8,192 rows.
    pub fn open(source: impl Into<DatasetSource>, mut options: DatasetOptions) -> Result<Self> {
        options.read.strings = StringType::Utf8View;
        options.read.batch_size = 8192;
        let dataset = Dataset::open(source, options).map_err(error)?;
        Self::new(Arc::new(dataset))
    }

    /// The table of an open dataset, read with the dataset's options.
    pub fn new(dataset: Arc<Dataset>) -> Result<Self> {
        let schema = bridge::schema_to_df(&dataset.schema())?;
        Ok(ParqTable { dataset, schema })
    }

    /// The dataset read.
    pub fn dataset(&self) -> &Arc<Dataset> {
        &self.dataset
    }
}

#[async_trait]
impl TableProvider for ParqTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| match to_predicate(f, &self.schema) {
                Some(_) => TableProviderFilterPushDown::Exact,
                None => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let indices: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        let columns = indices
            .iter()
            .map(|&i| {
                self.schema
                    .fields()
                    .get(i)
                    .map(|f| f.name().clone())
                    .ok_or_else(|| DataFusionError::Plan(format!("column {i} is not in the table")))
            })
            .collect::<Result<Vec<String>>>()?;
        let schema = Arc::new(self.schema.project(&indices)?);
        let filter = filters
            .iter()
            .map(|f| {
                to_predicate(f, &self.schema).ok_or_else(|| {
                    DataFusionError::Plan(format!("the filter {f} cannot be pushed into parq"))
                })
            })
            .reduce(|a, b| Ok(a?.and(b?)))
            .transpose()?;
        // DataFusion's own estimate of the rows the filters leave (as its FilterExec makes
        // it above a scan), so that the planner sizes joins as it would with its reader.
        let estimate = match conjunction(filters.iter().cloned()) {
            Some(expr) => {
                let df_schema = DFSchema::try_from(self.schema.as_ref().clone())?;
                let selectivity = state.config_options().optimizer.default_filter_selectivity;
                Some((state.create_physical_expr(expr, &df_schema)?, selectivity))
            }
            None => None,
        };
        let partitions = state.config().target_partitions().max(1);
        let dataset = Arc::clone(&self.dataset);
        let plan_columns = columns.clone();
        let plan_filter = filter.clone();
        // Footers may be read here (object stores): off the async threads.
        let units = tokio::task::spawn_blocking(move || {
            plan_units(&dataset, &plan_columns, plan_filter.as_ref())
        })
        .await
        .map_err(|e| DataFusionError::External(Box::new(e)))??;
        let plan = ScanPlan {
            dataset: Arc::clone(&self.dataset),
            columns,
            filter,
            limit,
            table_schema: Arc::clone(&self.schema),
            indices,
            estimate,
        };
        Ok(Arc::new(ParqExec::new(plan, schema, units, partitions)))
    }
}

/// The row groups a scan reads, with their footers: those the filter leaves.
fn plan_units(
    dataset: &Dataset,
    columns: &[String],
    filter: Option<&Predicate>,
) -> Result<Vec<Unit>> {
    let mut scan = dataset.scan().with_columns(columns.iter().cloned());
    if let Some(f) = filter {
        scan = scan.with_filter(f.clone());
    }
    let groups = scan.row_groups().map_err(error)?;
    let metas = dataset.metadata().map_err(error)?;
    let mut units = Vec::new();
    for (file, row_groups) in groups {
        let meta = metas.get(file).ok_or_else(|| {
            DataFusionError::Internal(format!("the dataset has no footer for file {file}"))
        })?;
        for g in row_groups {
            let rows = meta.row_groups().get(g).map_or(0, |rg| rg.num_rows());
            units.push(Unit {
                file,
                row_group: g,
                rows: u64::try_from(rows).unwrap_or(0),
                meta: Arc::clone(meta),
            });
        }
    }
    Ok(units)
}
