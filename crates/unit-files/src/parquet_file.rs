//! A unit's table as one Parquet file, readable by any Parquet reader with
//! the Arrow types of the columns (the Arrow schema is kept in the file).
//!
//! The file's key-value metadata holds `DATA_CRC32`: the CRC-32 (the
//! IEEE polynomial, as zlib's `crc32`) of every byte before the footer,
//! in hex. A unit damaged mid-file is then found when a sweep resumes
//! (`dtlsim.sweep`), not when the sweep is assembled; the footer itself is
//! checked by being parsed. (The Parquet format's own page CRC,
//! PageHeader.crc, is not written by the Rust writer.)

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, NullArray, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::{KeyValue, ParquetMetaDataReader};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use sim::columns::{Column, Data};

/// The key of the footer's metadata that holds the data's CRC-32.
pub const DATA_CRC32: &str = "dtlsim.data_crc32";

/// Write `columns` (all of one length) to `path` as a Parquet file of one
/// row group, Snappy-compressed (what the Python writer it replaces did).
pub fn write(columns: &[Column], path: &Path) -> Result<(), String> {
    let bytes = to_bytes(columns).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The Parquet file's bytes.
pub fn to_bytes(columns: &[Column]) -> Result<Vec<u8>, String> {
    let batch = record_batch(columns)?;
    // statistics per column chunk and no page index (as pyarrow writes by
    // default): nothing is written between the row group and the footer
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_offset_index_disabled(true)
        .build();
    let err = |e: parquet::errors::ParquetError| e.to_string();
    let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).map_err(err)?;
    w.write(&batch).map_err(err)?;
    // the row group written out of every buffer: what follows is the footer
    w.flush().map_err(err)?;
    w.sync().map_err(|e| e.to_string())?;
    let data_end = w.inner().len();
    let crc = crc32fast::hash(w.inner());
    w.append_key_value_metadata(KeyValue::new(DATA_CRC32.into(), format!("{crc:08x}")));
    let bytes = w.into_inner().map_err(err)?;
    if footer_start(&bytes) != Some(data_end) {
        return Err("the Parquet writer put more than its footer after the row group".into());
    }
    Ok(bytes)
}

/// What is wrong with the unit file whose bytes are `bytes`, or None when
/// it is whole: a Parquet file whose footer reads and whose data matches
/// the CRC-32 the footer holds (`DATA_CRC32`). A resumed sweep checks each
/// unit it finds so, without reading its table (`dtlsim.sweep`).
pub fn damage(bytes: &[u8]) -> Option<String> {
    let n = bytes.len();
    if n < 12 || &bytes[..4] != b"PAR1" || &bytes[n - 4..] != b"PAR1" {
        return Some("not a whole Parquet file".into());
    }
    let end = match footer_start(bytes) {
        Some(end) if end >= 4 => end,
        _ => return Some("its footer length runs past the start of the file".into()),
    };
    let metadata = match ParquetMetaDataReader::decode_metadata(&bytes[end..n - 8]) {
        Ok(m) => m,
        Err(e) => return Some(format!("its footer does not read: {e}")),
    };
    let want = metadata
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|k| k.key == DATA_CRC32))
        .and_then(|k| k.value.clone());
    let Some(want) = want else {
        return Some("its footer holds no data checksum".into());
    };
    let got = format!("{:08x}", crc32fast::hash(&bytes[..end]));
    (want != got).then(|| format!("its data's CRC-32 is {got}, its footer says {want}"))
}

/// Where the footer of the Parquet file `bytes` starts (its length is in
/// the 4 bytes before the closing magic).
fn footer_start(bytes: &[u8]) -> Option<usize> {
    let n = bytes.len().checked_sub(8)?;
    let len = u32::from_le_bytes(bytes[n..n + 4].try_into().ok()?);
    n.checked_sub(len as usize)
}

/// `columns` as one Arrow record batch; every field nullable (as a table
/// built in Python has them).
pub fn record_batch(columns: &[Column]) -> Result<RecordBatch, String> {
    let n = columns.first().map_or(0, Column::len);
    if let Some(c) = columns.iter().find(|c| c.len() != n) {
        return Err(format!(
            "column {:?} has {} rows, the first column {n}",
            c.name,
            c.len()
        ));
    }
    let fields: Vec<Field> = columns
        .iter()
        .map(|c| Field::new(&c.name, data_type(&c.data), true))
        .collect();
    let arrays: Vec<ArrayRef> = columns.iter().map(array).collect();
    let options = RecordBatchOptions::new().with_row_count(Some(n));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
        .map_err(|e| e.to_string())
}

/// An Arrow array back as a column (its null, yes/no, int64, float64 or
/// text values; a dictionary of text as its texts).
pub fn column(name: &str, a: &dyn Array) -> Result<Column, String> {
    let n = a.len();
    let valid: Vec<u8> = (0..n).map(|i| u8::from(a.is_valid(i))).collect();
    let data = match a.data_type() {
        DataType::Null => Data::Null(n),
        DataType::Boolean => {
            Data::Bool(a.as_boolean().iter().map(|v| v.unwrap_or(false)).collect())
        }
        DataType::Int64 => Data::I64(a.as_primitive::<Int64Type>().values().to_vec()),
        DataType::Float64 => Data::F64(a.as_primitive::<Float64Type>().values().to_vec()),
        DataType::Utf8 => Data::Text(
            a.as_string::<i32>()
                .iter()
                .map(|v| v.unwrap_or_default().to_string())
                .collect(),
        ),
        DataType::Dictionary(key, value)
            if **key == DataType::Int32 && **value == DataType::Utf8 =>
        {
            let d = a.as_dictionary::<Int32Type>();
            let texts = d.values().as_string::<i32>();
            Data::Text(
                d.keys()
                    .iter()
                    .map(|k| k.map_or(String::new(), |k| texts.value(k as usize).to_string()))
                    .collect(),
            )
        }
        other => {
            return Err(format!(
                "column {name:?} is {other}: not a column of the core"
            ))
        }
    };
    Ok(Column {
        name: name.into(),
        data,
        valid,
    })
}

fn data_type(d: &Data) -> DataType {
    match d {
        Data::F64(_) => DataType::Float64,
        Data::I64(_) => DataType::Int64,
        Data::Bool(_) => DataType::Boolean,
        Data::Text(_) => DataType::Utf8,
        Data::Null(_) => DataType::Null,
    }
}

fn array(c: &Column) -> ArrayRef {
    // no validity buffer where every row has a value (as Python's columns had none)
    let nulls = c
        .valid
        .contains(&0)
        .then(|| NullBuffer::from(c.valid.iter().map(|&v| v != 0).collect::<Vec<bool>>()));
    match &c.data {
        Data::F64(d) => Arc::new(Float64Array::new(ScalarBuffer::from(d.clone()), nulls)),
        Data::I64(d) => Arc::new(Int64Array::new(ScalarBuffer::from(d.clone()), nulls)),
        Data::Bool(d) => Arc::new(BooleanArray::new(BooleanBuffer::from(d.as_slice()), nulls)),
        Data::Text(d) => Arc::new(StringArray::from_iter(
            d.iter()
                .zip(&c.valid)
                .map(|(t, &v)| (v != 0).then_some(t.as_str())),
        )),
        Data::Null(n) => Arc::new(NullArray::new(*n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_footer_holds_the_crc_of_the_bytes_before_it() {
        let columns = vec![
            Column {
                name: "x".into(),
                data: Data::F64(vec![1.0, 2.0]),
                valid: vec![1, 0],
            },
            Column {
                name: "s".into(),
                data: Data::Text(vec!["a".into(), "b".into()]),
                valid: vec![1, 1],
            },
            Column {
                name: "none".into(),
                data: Data::Null(2),
                valid: vec![0, 0],
            },
        ];
        let bytes = to_bytes(&columns).unwrap();
        assert_eq!(&bytes[..4], b"PAR1");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
        let data_end = footer_start(&bytes).unwrap();
        let crc = format!("{:08x}", crc32fast::hash(&bytes[..data_end]));
        let tail = &bytes[data_end..];
        let found = tail.windows(crc.len()).any(|w| w == crc.as_bytes());
        assert!(found, "the footer names the CRC {crc}");
    }

    #[test]
    fn a_unit_is_whole_or_says_what_is_wrong_with_it() {
        let columns = vec![Column {
            name: "x".into(),
            data: Data::F64(vec![1.0, 2.0, 3.0]),
            valid: vec![1, 1, 1],
        }];
        let bytes = to_bytes(&columns).unwrap();
        assert_eq!(damage(&bytes), None);
        assert_eq!(damage(b"").as_deref(), Some("not a whole Parquet file"));
        let half = &bytes[..bytes.len() / 2];
        assert_eq!(damage(half).as_deref(), Some("not a whole Parquet file"));
        // a byte of the data flipped, the footer whole
        let mut flipped = bytes.clone();
        flipped[5] ^= 0xff;
        let why = damage(&flipped).unwrap();
        assert!(why.starts_with("its data's CRC-32 is "), "{why}");
        // a footer longer than the file
        let mut long = bytes.clone();
        let at = long.len() - 8;
        long[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let why = damage(&long).unwrap();
        assert_eq!(why, "its footer length runs past the start of the file");
    }

    #[test]
    fn columns_of_different_lengths_are_refused_by_name() {
        let columns = vec![
            Column {
                name: "a".into(),
                data: Data::I64(vec![1]),
                valid: vec![1],
            },
            Column {
                name: "b".into(),
                data: Data::I64(vec![1, 2]),
                valid: vec![1, 1],
            },
        ];
        let e = to_bytes(&columns).unwrap_err();
        assert!(e.contains("\"b\" has 2 rows"), "{e}");
    }
}
