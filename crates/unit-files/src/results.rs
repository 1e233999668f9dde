//! A run's result files, made from its unit files a point at a time: the
//! result rows (`results.parquet`), the same in tidy form
//! (`results_tidy.parquet`, `tidy`) and the per-node rows
//! (`nodes.parquet`), one row group per point, with at most one point's
//! rows in memory. Beside them, what the run's summary needs of each point
//! (`PointFigures`), so the summary is figured without reading the files
//! back.

use std::cmp::Ordering;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use arrow_select::concat::concat_batches;
use arrow_select::take::take_record_batch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;

use crate::tables::Param;
use crate::tidy;
use crate::tidy_file::TidyWriter;

/// The unit files of one point, in plan order: its result rows and its
/// per-node rows.
#[derive(Clone, Debug, Default)]
pub struct PointUnits {
    pub rows: Vec<PathBuf>,
    pub nodes: Vec<PathBuf>,
}

/// Where the three files go (temporary names: the caller renames them).
pub struct Outputs<'a> {
    pub results: &'a Path,
    pub tidy: &'a Path,
    pub nodes: &'a Path,
}

/// What the summary of a point needs: the values of its first row in the
/// `by` columns (null where the rows have none), its number of rows, and
/// the asked-for numeric columns the rows have, as floats (NaN where null).
#[derive(Debug)]
pub struct PointFigures {
    pub by: Vec<Param>,
    pub rows: usize,
    pub values: Vec<(String, Vec<f64>)>,
}

/// A result row's place: replication, row within it (and, in the per-node
/// table, its node); a point's units are read in plan order and their rows
/// put in this order where they are not already.
const ROW_ORDER: [&str; 3] = ["replication", "index", "node"];

/// Write the result files of `points` (each point's unit files) to
/// `out`; the tidy form keeps the sweep `axes` of the parameters. Returns
/// each point's figures for the summary (`by` and `wanted` columns).
pub fn write(
    points: &[PointUnits],
    out: &Outputs<'_>,
    axes: &[String],
    by: &[String],
    wanted: &[String],
) -> Result<Vec<PointFigures>, Failure> {
    let schema = unified(points.iter().flat_map(|p| &p.rows)).map_err(Failure::Unit)?;
    let node_schema = unified(points.iter().flat_map(|p| &p.nodes)).map_err(Failure::Unit)?;
    let tidy_schema = tidy::schema(&schema, axes);
    let mut results = writer(out.results, &schema).map_err(Failure::Output)?;
    let mut tidy_rows = tidy_writer(out.tidy, &tidy_schema).map_err(Failure::Output)?;
    let mut nodes = writer(out.nodes, &node_schema).map_err(Failure::Output)?;
    let mut figures = Vec::with_capacity(points.len());
    for p in points {
        let rows = read_point(&p.rows, &schema).and_then(in_order);
        let per_node = read_point(&p.nodes, &node_schema).and_then(in_order);
        let (rows, per_node) = (
            rows.map_err(Failure::Unit)?,
            per_node.map_err(Failure::Unit)?,
        );
        let tidy = tidy::table(&rows, &tidy_schema).map_err(Failure::Unit)?;
        write_group(&mut results, &rows, out.results).map_err(Failure::Output)?;
        tidy_rows.write(&tidy).map_err(|e| output(out.tidy, e))?;
        write_group(&mut nodes, &per_node, out.nodes).map_err(Failure::Output)?;
        figures.push(point_figures(&rows, by, wanted));
    }
    results.close().map_err(|e| output(out.results, e))?;
    tidy_rows.close().map_err(|e| output(out.tidy, e))?;
    nodes.close().map_err(|e| output(out.nodes, e))?;
    Ok(figures)
}

fn output(path: &Path, e: ParquetError) -> Failure {
    Failure::Output(format!("{}: {e}", path.display()))
}

/// Why a run's files were not made.
#[derive(Debug)]
pub enum Failure {
    /// A unit's rows could not be read or joined to the others'.
    Unit(String),
    /// A result file could not be written.
    Output(String),
}

/// Snappy: what pyarrow's writer, which this replaces, used by default.
fn properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build()
}

fn writer(path: &Path, schema: &SchemaRef) -> Result<ArrowWriter<File>, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let file = File::create(path).map_err(|e| at(e.to_string()))?;
    ArrowWriter::try_new(file, schema.clone(), Some(properties())).map_err(|e| at(e.to_string()))
}

fn tidy_writer(path: &Path, schema: &SchemaRef) -> Result<TidyWriter, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let file = File::create(path).map_err(|e| at(e.to_string()))?;
    TidyWriter::try_new(file, schema.clone(), properties()).map_err(|e| at(e.to_string()))
}

/// `batch` as one row group of its own (none for no rows).
fn write_group(w: &mut ArrowWriter<File>, batch: &RecordBatch, path: &Path) -> Result<(), String> {
    if batch.num_rows() == 0 {
        return Ok(());
    }
    let at = |e: parquet::errors::ParquetError| format!("{}: {e}", path.display());
    w.write(batch).map_err(at)?;
    w.flush().map_err(at)
}

fn open(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>, String> {
    let file = File::open(path).map_err(|e| unreadable(path, e))?;
    ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| unreadable(path, e))
}

/// A unit file that was whole when the sweep started and cannot be read
/// now: removed, so the next run of the sweep runs its unit again (as
/// `dtlsim.sweep` does with one it finds damaged).
fn unreadable(path: &Path, e: impl std::fmt::Display) -> String {
    let _ = std::fs::remove_file(path); // gone already: nothing to remove
    format!(
        "{}: unreadable unit file ({e}); removed, run again",
        path.display()
    )
}

/// Every column of the unit files at `paths` (their footers only), in
/// first-seen order; a column that is all null in one unit (Arrow's null
/// type) takes its type from another. Every field nullable.
pub fn unified<'a>(paths: impl Iterator<Item = &'a PathBuf>) -> Result<SchemaRef, String> {
    let mut fields: Vec<Field> = Vec::new();
    for path in paths {
        let builder = open(path)?;
        for f in builder.schema().fields() {
            match fields.iter_mut().find(|g| g.name() == f.name()) {
                None => fields.push(Field::new(f.name(), f.data_type().clone(), true)),
                Some(g) if g.data_type() == f.data_type() || f.data_type().is_null() => {}
                Some(g) if g.data_type().is_null() => {
                    *g = Field::new(f.name(), f.data_type().clone(), true);
                }
                Some(g) => {
                    return Err(format!(
                        "{}: column {:?} is {}, in an earlier unit {}",
                        path.display(),
                        f.name(),
                        f.data_type(),
                        g.data_type()
                    ))
                }
            }
        }
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// The rows of a point's units, one after another, with exactly the
/// columns of `schema` (a column a unit lacks is all null).
fn read_point(paths: &[PathBuf], schema: &SchemaRef) -> Result<RecordBatch, String> {
    let mut batches = Vec::new();
    for path in paths {
        let reader = open(path)?.build().map_err(|e| unreadable(path, e))?;
        for batch in reader {
            let batch = batch.map_err(|e| unreadable(path, e))?;
            let at = |e: String| format!("{}: {e}", path.display());
            batches.push(conform(&batch, schema).map_err(at)?);
        }
    }
    concat_batches(schema, &batches).map_err(|e| e.to_string())
}

fn conform(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, String> {
    let n = batch.num_rows();
    let columns = schema
        .fields()
        .iter()
        .map(|f| match batch.column_by_name(f.name()) {
            Some(c) if c.data_type() == f.data_type() => Ok(c.clone()),
            Some(c) if !c.data_type().is_null() => Err(format!(
                "column {:?} is {}, not {}",
                f.name(),
                c.data_type(),
                f.data_type()
            )),
            _ => Ok(new_null_array(f.data_type(), n)),
        })
        .collect::<Result<Vec<ArrayRef>, String>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(n));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options).map_err(|e| e.to_string())
}

/// `batch` in order of the `ROW_ORDER` columns it has (a stable sort, a
/// null last), unchanged where it already is (as one unit's rows are).
fn in_order(batch: RecordBatch) -> Result<RecordBatch, String> {
    let keys: Vec<Key<'_>> = ROW_ORDER
        .iter()
        .filter_map(|name| batch.column_by_name(name))
        .map(|c| Key::of(c.as_ref()))
        .collect::<Result<_, _>>()?;
    let n = batch.num_rows();
    let sorted = (1..n).all(|i| compare(&keys, i - 1, i) != Ordering::Greater);
    if sorted {
        return Ok(batch);
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| compare(&keys, a as usize, b as usize));
    take_record_batch(&batch, &UInt32Array::from(order)).map_err(|e| e.to_string())
}

/// Rows `a` and `b` compared by `keys`, in turn.
pub(crate) fn compare(keys: &[Key<'_>], a: usize, b: usize) -> Ordering {
    keys.iter()
        .map(|k| k.compare(a, b))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// A column rows are put in order by: ascending, a null after every value
/// (Arrow's sort), text in the order of its UTF-8 bytes.
pub(crate) enum Key<'a> {
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
    Text(&'a arrow_array::StringArray),
    Null,
}

impl<'a> Key<'a> {
    pub(crate) fn of(c: &'a dyn Array) -> Result<Key<'a>, String> {
        Ok(match c.data_type() {
            DataType::Int64 => Key::Int(c.as_primitive::<Int64Type>().iter().collect()),
            DataType::Int32 => Key::Int(
                c.as_primitive::<Int32Type>()
                    .iter()
                    .map(|v| v.map(i64::from))
                    .collect(),
            ),
            DataType::Float64 => Key::Float(c.as_primitive::<Float64Type>().iter().collect()),
            DataType::Utf8 => Key::Text(c.as_string::<i32>()),
            DataType::Null => Key::Null,
            other => return Err(format!("rows are not put in order by a column of {other}")),
        })
    }

    fn compare(&self, a: usize, b: usize) -> Ordering {
        fn nulls_last<T>(x: Option<T>, y: Option<T>, cmp: impl Fn(T, T) -> Ordering) -> Ordering {
            match (x, y) {
                (Some(x), Some(y)) => cmp(x, y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
        }
        match self {
            Key::Int(v) => nulls_last(v[a], v[b], |x, y| x.cmp(&y)),
            Key::Float(v) => nulls_last(v[a], v[b], |x, y| x.total_cmp(&y)),
            Key::Text(s) => {
                let at = |i: usize| s.is_valid(i).then(|| s.value(i));
                nulls_last(at(a), at(b), |x: &str, y: &str| x.cmp(y))
            }
            Key::Null => Ordering::Equal,
        }
    }
}

/// A numeric or yes/no column as floats (a yes as 1), None where null;
/// None for a column of another type.
pub(crate) fn floats(c: &dyn Array) -> Option<Vec<Option<f64>>> {
    Some(match c.data_type() {
        DataType::Float64 => c.as_primitive::<Float64Type>().iter().collect(),
        DataType::Int64 => c
            .as_primitive::<Int64Type>()
            .iter()
            .map(|v| v.map(|i| i as f64))
            .collect(),
        DataType::Int32 => c
            .as_primitive::<Int32Type>()
            .iter()
            .map(|v| v.map(f64::from))
            .collect(),
        DataType::Boolean => c
            .as_boolean()
            .iter()
            .map(|v| v.map(|b| f64::from(u8::from(b))))
            .collect(),
        DataType::Null => vec![None; c.len()],
        _ => return None,
    })
}

fn point_figures(rows: &RecordBatch, by: &[String], wanted: &[String]) -> PointFigures {
    let by = by
        .iter()
        .map(|name| match rows.column_by_name(name) {
            Some(c) if rows.num_rows() > 0 => first_value(c.as_ref()),
            _ => Param::Null,
        })
        .collect();
    let values = wanted
        .iter()
        .filter_map(|name| {
            let values = floats(rows.column_by_name(name)?.as_ref())?;
            let values = values.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect();
            Some((name.clone(), values))
        })
        .collect();
    PointFigures {
        by,
        rows: rows.num_rows(),
        values,
    }
}

/// The first value of `c` as a parameter (null where it has none).
fn first_value(c: &dyn Array) -> Param {
    if c.is_null(0) {
        return Param::Null;
    }
    match c.data_type() {
        DataType::Utf8 => Param::Text(c.as_string::<i32>().value(0).to_string()),
        DataType::Int64 => Param::Int(c.as_primitive::<Int64Type>().value(0)),
        DataType::Int32 => Param::Int(i64::from(c.as_primitive::<Int32Type>().value(0))),
        DataType::Float64 => Param::Float(c.as_primitive::<Float64Type>().value(0)),
        DataType::Boolean => Param::Bool(c.as_boolean().value(0)),
        _ => Param::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet_file;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use sim::columns::{Column, Data};

    fn ints(name: &str, values: &[i64]) -> Column {
        Column {
            name: name.into(),
            data: Data::I64(values.to_vec()),
            valid: vec![1; values.len()],
        }
    }

    fn floats_of(name: &str, values: &[f64]) -> Column {
        Column {
            name: name.into(),
            data: Data::F64(values.to_vec()),
            valid: vec![1; values.len()],
        }
    }

    fn texts(name: &str, values: &[&str]) -> Column {
        Column {
            name: name.into(),
            data: Data::Text(values.iter().map(|s| s.to_string()).collect()),
            valid: vec![1; values.len()],
        }
    }

    #[test]
    fn a_row_group_per_point_every_column_in_order_and_the_summarys_figures() {
        let dir = std::env::temp_dir().join(format!("dtlsim-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let unit = |name: &str, columns: Vec<Column>| {
            let path = dir.join(name);
            parquet_file::write(&columns, &path).unwrap();
            path
        };
        // point 0: two units, the second's rows first in the file list's
        // order of replications; point 1 lacks `node1_x` and has a null axis
        let a0 = unit(
            "a0.parquet",
            vec![
                texts("point_key", &["p", "p"]),
                ints("replication", &[2, 3]),
                ints("index", &[0, 0]),
                floats_of("success", &[1.0, 0.0]),
                floats_of("node1_x", &[5.0, 6.0]),
            ],
        );
        let a1 = unit(
            "a1.parquet",
            vec![
                texts("point_key", &["p"]),
                ints("replication", &[0]),
                ints("index", &[0]),
                floats_of("success", &[1.0]),
                floats_of("node1_x", &[4.0]),
            ],
        );
        let b0 = unit(
            "b0.parquet",
            vec![
                Column {
                    name: "point_key".into(),
                    data: Data::Null(1),
                    valid: vec![0],
                },
                ints("replication", &[0]),
                ints("index", &[0]),
                floats_of("success", &[1.0]),
            ],
        );
        let n0 = unit(
            "n0.parquet",
            vec![ints("replication", &[0]), ints("node", &[0])],
        );
        let points = [
            PointUnits {
                rows: vec![a0, a1],
                nodes: vec![n0.clone()],
            },
            PointUnits {
                rows: vec![b0],
                nodes: vec![n0],
            },
        ];
        let (results, tidy, nodes) = (
            dir.join("results.parquet"),
            dir.join("tidy.parquet"),
            dir.join("nodes.parquet"),
        );
        let out = Outputs {
            results: &results,
            tidy: &tidy,
            nodes: &nodes,
        };
        let by = ["point_key".to_string()];
        let wanted = ["success".to_string(), "absent".to_string()];
        let figures = write(&points, &out, &[], &by, &wanted).unwrap();
        assert_eq!(figures.len(), 2);
        assert_eq!(figures[0].by, [Param::Text("p".into())]);
        assert_eq!(figures[0].rows, 3);
        // in order of replication: 0 (the second unit), 2, 3
        assert_eq!(
            figures[0].values,
            [("success".to_string(), vec![1.0, 1.0, 0.0])]
        );
        assert_eq!(figures[1].by, [Param::Null]);
        let groups = |p: &Path| {
            let r = SerializedFileReader::new(File::open(p).unwrap()).unwrap();
            let m = r.metadata();
            (0..m.num_row_groups())
                .map(|i| m.row_group(i).num_rows())
                .collect::<Vec<_>>()
        };
        assert_eq!(groups(&results), [3, 1]);
        assert_eq!(groups(&nodes), [1, 1]);
        // 3 + 3 values of point 0, 1 of point 1
        assert_eq!(groups(&tidy), [6, 1]);
        let back = open(&results).unwrap().build().unwrap();
        let batch = back.into_iter().next().unwrap().unwrap();
        let names: Vec<&str> = batch
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(
            names,
            ["point_key", "replication", "index", "success", "node1_x"]
        );
        assert_eq!(batch.schema().field(0).data_type(), &DataType::Utf8);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_unit_file_damaged_since_the_sweep_began_is_named_and_removed() {
        let dir = std::env::temp_dir().join(format!("dtlsim-damaged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let unit = dir.join("u.parquet");
        std::fs::write(&unit, b"PAR1 not a footer").unwrap();
        let e = unified([unit.clone()].iter()).unwrap_err();
        assert!(e.contains("u.parquet: unreadable unit file"), "{e}");
        assert!(e.ends_with("removed, run again"), "{e}");
        assert!(!unit.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_column_of_two_types_is_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("dtlsim-types-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.parquet"), dir.join("b.parquet"));
        parquet_file::write(&[ints("x", &[1])], &a).unwrap();
        parquet_file::write(&[floats_of("x", &[1.0])], &b).unwrap();
        let e = unified([a, b].iter()).unwrap_err();
        assert!(
            e.contains("column \"x\" is Float64, in an earlier unit Int64"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
