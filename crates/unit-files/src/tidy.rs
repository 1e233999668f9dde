//! Result rows in tidy form: one row per (run row, node, quantity).
//!
//! The wide rows hold a column per node and quantity (`node0_energy_uj`,
//! `node1_energy_uj`, …) beside the run's own measurements (`duration_s`,
//! `client_energy_uj`). The tidy form melts them into `node` and
//! `quantity` columns with one numeric `value`, so that a reader groups by
//! `["topology.hops", "node", "quantity"]` without parsing column names.
//! A measurement of the whole run (not of one node) has `node` null.
//! Values a row does not have (the third node of a one-hop point) are left
//! out instead of kept as NaN.
//!
//! Only the sweep axes of the parameters are kept: the others are the same
//! in every row (they are in `manifest.json` and the wide rows).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    RecordBatchOptions, StringArray, UInt32Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use arrow_select::take::take;

use crate::results::{compare, floats, Key};

/// Which rows a measurement belongs to (kept in the tidy form as they are).
const ROW_ID: [&str; 3] = ["point_key", "replication", "index"];

/// The columns the tidy form adds after the row's identity.
const COLUMNS: [&str; 3] = ["node", "quantity", "value"];

/// pandas reads an integer column with nulls as floats unless the file's
/// pandas metadata names its dtype: `node` as the nullable Int64.
const PANDAS_NODE: &str = r#"{"index_columns": [], "column_indexes": [], "columns": [{"name": "node", "field_name": "node", "pandas_type": "int64", "numpy_type": "Int64", "metadata": null}]}"#;

/// A scenario parameter (a dotted key, or `platform`), not a measurement.
pub fn is_parameter(column: &str) -> bool {
    column.contains('.') || column == "platform"
}

/// The row's identity: `point_key`, the sweep `axes`, `replication`,
/// `index`, those of them `names` has.
fn ids(names: &[&str], axes: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let wanted = std::iter::once(ROW_ID[0])
        .chain(axes.iter().map(String::as_str))
        .chain(ROW_ID[1..].iter().copied());
    for c in wanted {
        if names.contains(&c) && !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
    }
    out
}

/// The tidy form's columns for wide rows of `schema`: the row's identity
/// (their types as in the wide rows), `node` (int64), `quantity` (a
/// dictionary of text: a category in pandas) and `value` (float64).
pub fn schema(wide: &Schema, axes: &[String]) -> SchemaRef {
    let names: Vec<&str> = wide.fields().iter().map(|f| f.name().as_str()).collect();
    let mut fields: Vec<Field> = ids(&names, axes)
        .iter()
        .map(|c| {
            let f = wide
                .field_with_name(c)
                .expect("an id is a column of the rows");
            Field::new(c, f.data_type().clone(), true)
        })
        .collect();
    fields.push(Field::new("node", DataType::Int64, true));
    let quantity = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    fields.push(Field::new("quantity", quantity, true));
    fields.push(Field::new("value", DataType::Float64, true));
    let metadata = HashMap::from([("pandas".to_string(), PANDAS_NODE.to_string())]);
    Arc::new(Schema::new_with_metadata(fields, metadata))
}

/// `node<N>_<quantity>`: what node N did in the run; else the whole run's.
fn node_and_quantity(column: &str) -> (Option<i64>, &str) {
    if let Some((node, quantity)) = column
        .strip_prefix("node")
        .and_then(|rest| rest.split_once('_'))
    {
        let digits = !node.is_empty() && node.bytes().all(|b| b.is_ascii_digit());
        if let (true, Ok(n), false) = (digits, node.parse::<i64>(), quantity.is_empty()) {
            return (Some(n), quantity);
        }
    }
    (None, column)
}

/// `rows` (wide result rows whose columns include `schema`'s identity) as
/// one row per run row, node and quantity: the identity columns, then
/// `node` (null for a measurement of the whole run), `quantity` and
/// `value` (float; a yes/no as 0/1). The measurements are the numeric and
/// yes/no columns that are neither the identity nor a parameter; a null or
/// NaN value is left out. Rows in order of `point_key`, `replication` and
/// `index` (of those the identity has), then node, the whole run's first,
/// then the order of the wide columns (a stable sort, a null key last).
/// `quantity` is a dictionary of every quantity of the measured columns, in
/// their order (one no row has included): `tidy_file` writes it as it is.
pub fn table(rows: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, String> {
    let ids: Vec<&str> = schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .filter(|c| !COLUMNS.contains(c))
        .collect();
    let mut pick: Vec<u32> = Vec::new();
    let mut node: Vec<Option<i64>> = Vec::new();
    let mut code: Vec<i32> = Vec::new();
    let mut value: Vec<f64> = Vec::new();
    let mut quantities: Vec<&str> = Vec::new();
    for (field, column) in rows.schema_ref().fields().iter().zip(rows.columns()) {
        let name = field.name().as_str();
        if ids.contains(&name) || is_parameter(name) || field.data_type().is_null() {
            continue;
        }
        let Some(values) = floats(column.as_ref()) else {
            continue; // text: not a measurement
        };
        let (n, quantity) = node_and_quantity(name);
        let q = match quantities.iter().position(|&x| x == quantity) {
            Some(q) => q,
            None => {
                quantities.push(quantity);
                quantities.len() - 1
            }
        };
        for (row, v) in values.into_iter().enumerate() {
            if let Some(v) = v.filter(|v| !v.is_nan()) {
                pick.push(row as u32);
                node.push(n);
                code.push(q as i32);
                value.push(v);
            }
        }
    }
    // the order: the row's identity, then node (None before Some), then
    // the order the values were gathered in
    let keys: Vec<Key<'_>> = ROW_ID
        .iter()
        .filter(|c| ids.contains(c))
        .map(|c| Key::of(rows.column_by_name(c).expect("an id column").as_ref()))
        .collect::<Result<_, _>>()?;
    let mut order: Vec<usize> = (0..pick.len()).collect();
    order.sort_by(|&a, &b| {
        compare(&keys, pick[a] as usize, pick[b] as usize).then(node[a].cmp(&node[b]))
    });
    let picked = UInt32Array::from_iter_values(order.iter().map(|&i| pick[i]));
    let mut columns: Vec<ArrayRef> = ids
        .iter()
        .map(|c| {
            let column = rows.column_by_name(c).expect("an id column");
            take(column.as_ref(), &picked, None).map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    columns.push(Arc::new(Int64Array::from_iter(
        order.iter().map(|&i| node[i]),
    )));
    let codes = Int32Array::from_iter_values(order.iter().map(|&i| code[i]));
    let dictionary = Arc::new(StringArray::from_iter_values(&quantities));
    let quantity =
        DictionaryArray::<Int32Type>::try_new(codes, dictionary).map_err(|e| e.to_string())?;
    columns.push(Arc::new(quantity));
    columns.push(Arc::new(Float64Array::from_iter_values(
        order.iter().map(|&i| value[i]),
    )));
    let options = RecordBatchOptions::new().with_row_count(Some(order.len()));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::{BooleanArray, NullArray};

    fn wide() -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("point_key", DataType::Utf8, true),
            Field::new("topology.hops", DataType::Int64, true),
            Field::new("replication", DataType::Int64, true),
            Field::new("index", DataType::Int64, true),
            Field::new("success", DataType::Boolean, true),
            Field::new("node1_energy_uj", DataType::Float64, true),
            Field::new("node0_energy_uj", DataType::Float64, true),
            Field::new("gap_s", DataType::Float64, true),
            Field::new("duration_s", DataType::Float64, true),
            Field::new("outcome", DataType::Utf8, true),
            Field::new("gone", DataType::Null, true),
        ]);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec!["b", "a", "b"])),
            Arc::new(Int64Array::from(vec![1, 1, 1])),
            Arc::new(Int64Array::from(vec![0, 5, 0])),
            Arc::new(Int64Array::from(vec![1, 0, 0])),
            Arc::new(BooleanArray::from(vec![true, false, true])),
            Arc::new(Float64Array::from(vec![Some(1.0), None, Some(3.0)])),
            Arc::new(Float64Array::from(vec![10.0, 20.0, f64::NAN])),
            Arc::new(Float64Array::from(vec![None, None, None])),
            Arc::new(Float64Array::from(vec![Some(0.5), None, Some(0.7)])),
            Arc::new(StringArray::from(vec!["ok", "no", "ok"])),
            Arc::new(NullArray::new(3)),
        ];
        RecordBatch::try_new(Arc::new(schema), columns).unwrap()
    }

    fn text(batch: &RecordBatch, name: &str) -> Vec<String> {
        let c = batch.column_by_name(name).unwrap();
        let dict = c.as_dictionary::<Int32Type>();
        let values = dict.values().as_string::<i32>();
        dict.keys()
            .iter()
            .map(|k| values.value(k.unwrap() as usize).to_string())
            .collect()
    }

    #[test]
    fn one_row_per_value_in_order_of_row_then_node_then_column() {
        let rows = wide();
        let schema = schema(rows.schema_ref(), &["topology.hops".to_string()]);
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(
            names,
            [
                "point_key",
                "topology.hops",
                "replication",
                "index",
                "node",
                "quantity",
                "value"
            ]
        );
        let t = table(&rows, &schema).unwrap();
        // row "a" (replication 5) first, then "b" 0/0 (wide row 2), then "b" 0/1
        let keys = t.column(0).as_string::<i32>();
        let keys: Vec<&str> = keys.iter().map(Option::unwrap).collect();
        assert_eq!(keys, ["a", "a", "b", "b", "b", "b", "b", "b", "b"]);
        let node = t.column(4).as_primitive::<arrow_array::types::Int64Type>();
        let node: Vec<Option<i64>> = node.iter().collect();
        assert_eq!(
            node,
            [
                None,
                Some(0),
                None,
                None,
                Some(1),
                None,
                None,
                Some(0),
                Some(1)
            ]
        );
        assert_eq!(
            text(&t, "quantity"),
            [
                "success",
                "energy_uj",
                "success",
                "duration_s",
                "energy_uj",
                "success",
                "duration_s",
                "energy_uj",
                "energy_uj"
            ]
        );
        let value: Vec<f64> = t
            .column(6)
            .as_primitive::<arrow_array::types::Float64Type>()
            .values()
            .to_vec();
        assert_eq!(value, [0.0, 20.0, 1.0, 0.7, 3.0, 1.0, 0.5, 10.0, 1.0]);
        // the dictionary: every quantity in the order of the columns, `gap_s`
        // (which no row has) too
        let dict = t.column(5).as_dictionary::<Int32Type>();
        let values: Vec<&str> = dict
            .values()
            .as_string::<i32>()
            .iter()
            .map(Option::unwrap)
            .collect();
        assert_eq!(values, ["success", "energy_uj", "gap_s", "duration_s"]);
        assert!(t.schema().metadata().contains_key("pandas"));
    }

    #[test]
    fn a_name_like_a_node_count_without_a_number_is_the_whole_runs() {
        assert_eq!(node_and_quantity("node12_frames"), (Some(12), "frames"));
        assert_eq!(node_and_quantity("nodes_up"), (None, "nodes_up"));
        assert_eq!(node_and_quantity("node_x"), (None, "node_x"));
        assert_eq!(node_and_quantity("node3_"), (None, "node3_"));
        assert!(is_parameter("mac.kind") && is_parameter("platform"));
        assert!(!is_parameter("duration_s"));
    }
}
