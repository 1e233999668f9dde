//! Result rows turned into columns (every key any row has, in first-seen
//! order, null where a row lacks it), so a front end builds a table from a
//! few buffers instead of one object per value.

use std::collections::HashMap;

use crate::row::{Row, Value};

pub enum Data {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    Text(Vec<String>),
    /// A column of this many rows with no value at all (Arrow's null
    /// type): a parameter that is None for a whole unit.
    Null(usize),
}

pub struct Column {
    pub name: String,
    pub data: Data,
    /// 1 where the row has the key, 0 where it is null.
    pub valid: Vec<u8>,
}

impl Column {
    pub fn len(&self) -> usize {
        self.valid.len()
    }

    pub fn is_empty(&self) -> bool {
        self.valid.is_empty()
    }
}

impl Data {
    fn of(v: &Value) -> Data {
        match v {
            Value::Bool(_) => Data::Bool(Vec::new()),
            Value::Int(_) => Data::I64(Vec::new()),
            Value::Float(_) => Data::F64(Vec::new()),
            Value::Text(_) => Data::Text(Vec::new()),
        }
    }

    fn push_null(&mut self) {
        match self {
            Data::F64(d) => d.push(0.0),
            Data::I64(d) => d.push(0),
            Data::Bool(d) => d.push(false),
            Data::Text(d) => d.push(String::new()),
            Data::Null(n) => *n += 1,
        }
    }

    /// Append `v`, widening the column if the types differ (int to float,
    /// anything to text) so no value is lost.
    fn push(&mut self, v: Value) {
        match (&mut *self, v) {
            (Data::F64(d), Value::Float(f)) => d.push(f),
            (Data::F64(d), Value::Int(i)) => d.push(i as f64),
            (Data::I64(d), Value::Int(i)) => d.push(i),
            (Data::Bool(d), Value::Bool(b)) => d.push(b),
            (Data::Text(d), Value::Text(t)) => d.push(t),
            (Data::I64(d), Value::Float(f)) => {
                let mut w: Vec<f64> = d.iter().map(|&i| i as f64).collect();
                w.push(f);
                *self = Data::F64(w);
            }
            (Data::Text(d), v) => d.push(text(&v)),
            // the first value of a column that had none: its type is the value's
            (Data::Null(n), v) => {
                let mut typed = Data::of(&v);
                (0..*n).for_each(|_| typed.push_null());
                typed.push(v);
                *self = typed;
            }
            (other, v) => {
                let mut t = other.texts();
                t.push(text(&v));
                *self = Data::Text(t);
            }
        }
    }

    fn texts(&self) -> Vec<String> {
        match self {
            Data::F64(d) => d.iter().map(|x| x.to_string()).collect(),
            Data::I64(d) => d.iter().map(|x| x.to_string()).collect(),
            Data::Bool(d) => d.iter().map(|x| x.to_string()).collect(),
            Data::Text(d) => d.clone(),
            Data::Null(n) => vec![String::new(); *n],
        }
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Text(t) => t.clone(),
    }
}

pub fn to_columns(rows: Vec<Row>) -> Vec<Column> {
    let mut columns: Vec<Column> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, row) in rows.into_iter().enumerate() {
        for (k, v) in row {
            let c = *index.entry(k.clone()).or_insert_with(|| {
                let mut data = Data::of(&v);
                (0..i).for_each(|_| data.push_null());
                columns.push(Column {
                    name: k,
                    data,
                    valid: vec![0; i],
                });
                columns.len() - 1
            });
            if columns[c].valid.len() == i {
                columns[c].data.push(v);
                columns[c].valid.push(1);
            }
        }
        for c in columns.iter_mut().filter(|c| c.valid.len() == i) {
            c.data.push_null();
            c.valid.push(0);
        }
    }
    columns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[(&str, Value)]) -> Row {
        values
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn missing_keys_become_nulls_and_mixed_numbers_widen() {
        let rows = vec![
            row(&[("a", Value::Int(1)), ("b", Value::Bool(true))]),
            row(&[("a", Value::Float(2.5)), ("c", Value::Text("x".into()))]),
            row(&[("b", Value::Bool(false))]),
        ];
        let cols = to_columns(rows);
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(matches!(&cols[0].data, Data::F64(d) if d[..2] == [1.0, 2.5]));
        assert_eq!(cols[0].valid, [1, 1, 0]);
        assert!(matches!(&cols[1].data, Data::Bool(d) if d[0] && !d[2]));
        assert_eq!(cols[1].valid, [1, 0, 1]);
        assert!(matches!(&cols[2].data, Data::Text(d) if d[1] == "x"));
        assert_eq!(cols[2].valid, [0, 1, 0]);
        assert!(cols.iter().all(|c| c.len() == 3));
    }

    #[test]
    fn a_column_of_no_value_takes_the_type_of_its_first() {
        let mut d = Data::Null(1);
        d.push_null();
        d.push(Value::Int(7));
        assert!(matches!(&d, Data::I64(v) if v[..] == [0, 0, 7]));
        assert_eq!(Data::Null(2).texts(), ["", ""]);
    }
}
