//! The tidy form's Parquet file, a row group per point, with each row
//! group's `quantity` dictionary written as `tidy::table` built it (every
//! quantity of the point's measured columns, in their order). arrow-rs's
//! writer keeps a dictionary's values in the order the rows use them and
//! drops one no row uses; pyarrow, which wrote this file before, kept the
//! dictionary as built, and a reader gets back the dictionary page as it
//! was written (pandas: the categories in that order). So that column's
//! chunk is written here, page by page; every other column by arrow-rs.

use std::fs::File;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, DictionaryArray, RecordBatch};
use arrow_schema::SchemaRef;
use bytes::Bytes;
use parquet::arrow::arrow_writer::{compute_leaves, ArrowRowGroupWriterFactory};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

/// Writes the tidy form's row groups (`write`), then the footer (`close`).
pub struct TidyWriter {
    file: SerializedFileWriter<File>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    row_groups: usize,
}

impl TidyWriter {
    pub fn try_new(file: File, schema: SchemaRef, props: WriterProperties) -> Result<Self> {
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))?;
        let (file, factory) = writer.into_serialized_writer()?;
        Ok(Self {
            file,
            factory,
            schema,
            row_groups: 0,
        })
    }

    /// `batch` (of the writer's schema) as one row group (none for no rows).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let writers = self.factory.create_column_writers(self.row_groups)?;
        let leaves: Vec<ColumnDescPtr> = self.file.schema_descr().columns().to_vec();
        if writers.len() != batch.num_columns() || leaves.len() != batch.num_columns() {
            return Err(ParquetError::General(
                "the tidy form's columns are flat: one Parquet column each".into(),
            ));
        }
        let mut row_group = self.file.next_row_group()?;
        let fields = self.schema.fields().iter().zip(batch.columns());
        for (((field, column), mut writer), leaf) in fields.zip(writers).zip(leaves) {
            if let Some(dict) = column.as_any().downcast_ref::<DictionaryArray<Int32Type>>() {
                let (bytes, close) = dictionary_chunk(dict, leaf)?;
                row_group.append_column(&bytes, close)?;
            } else {
                for l in compute_leaves(field, column)? {
                    writer.write(&l)?;
                }
                writer.close()?.append_to_row_group(&mut row_group)?;
            }
        }
        row_group.close()?;
        self.row_groups += 1;
        Ok(())
    }

    pub fn close(self) -> Result<()> {
        self.file.close().map(|_| ())
    }
}

/// A column chunk of `dict` (text values, no null) with its dictionary
/// as it is: a PLAIN dictionary page of its values in their order, then
/// one data page of their indices (RLE_DICTIONARY), uncompressed.
fn dictionary_chunk(
    dict: &DictionaryArray<Int32Type>,
    leaf: ColumnDescPtr,
) -> Result<(Bytes, ColumnCloseResult)> {
    let values = dict.values().as_string_opt::<i32>().ok_or_else(|| {
        ParquetError::General("a dictionary column of the tidy form holds text".into())
    })?;
    if dict.null_count() > 0 || values.null_count() > 0 {
        return Err(ParquetError::General(
            "a dictionary column of the tidy form has a value in every row".into(),
        ));
    }
    let n = dict.len();
    // PLAIN byte arrays: each value's length (4 bytes, little-endian), its bytes
    let mut plain = Vec::new();
    for v in values.iter().flatten() {
        plain.extend((v.len() as u32).to_le_bytes());
        plain.extend(v.as_bytes());
    }
    // data page v1: the definition levels (the field is nullable; every row
    // has a value: one run of 1s), their length in front; then the
    // indices' bit width and their runs
    let mut levels = Vec::new();
    rle_run(&mut levels, n, 1, 1);
    let mut body = Vec::new();
    body.extend((levels.len() as u32).to_le_bytes());
    body.extend(levels);
    let width = bit_width(values.len().saturating_sub(1) as u64).max(1);
    body.push(width);
    let keys = dict.keys().values();
    let mut i = 0;
    while i < n {
        let run = keys[i..].iter().take_while(|&&k| k == keys[i]).count();
        rle_run(&mut body, run, keys[i] as u64, width);
        i += run;
    }
    let mut sink = TrackedWrite::new(Vec::new());
    let mut pages = SerializedPageWriter::new(&mut sink);
    let (plain_len, body_len) = (plain.len(), body.len());
    let dictionary_page = Page::DictionaryPage {
        buf: Bytes::from(plain),
        num_values: values.len() as u32,
        encoding: Encoding::PLAIN,
        is_sorted: false,
    };
    let dictionary_at = pages.write_page(CompressedPage::new(dictionary_page, plain_len))?;
    let data_page = Page::DataPage {
        buf: Bytes::from(body),
        num_values: n as u32,
        encoding: Encoding::RLE_DICTIONARY,
        def_level_encoding: Encoding::RLE,
        rep_level_encoding: Encoding::RLE,
        statistics: None,
    };
    let data_at = pages.write_page(CompressedPage::new(data_page, body_len))?;
    pages.close()?;
    let bytes = sink.into_inner()?;
    let size = bytes.len() as i64;
    let metadata = ColumnChunkMetaData::builder(leaf)
        .set_encodings(vec![
            Encoding::PLAIN,
            Encoding::RLE,
            Encoding::RLE_DICTIONARY,
        ])
        .set_compression(Compression::UNCOMPRESSED)
        .set_num_values(n as i64)
        .set_total_compressed_size(size)
        .set_total_uncompressed_size(size)
        .set_dictionary_page_offset(Some(dictionary_at.offset as i64))
        .set_data_page_offset(data_at.offset as i64)
        .build()?;
    let close = ColumnCloseResult {
        bytes_written: size as u64,
        rows_written: n as u64,
        metadata,
        bloom_filter: None,
        column_index: None,
        offset_index: None,
    };
    Ok((Bytes::from(bytes), close))
}

/// One run of the RLE/bit-packing hybrid (Parquet's encodings): `count`
/// times `value`, `width` bits wide (in whole bytes, little-endian).
fn rle_run(out: &mut Vec<u8>, count: usize, value: u64, width: u8) {
    let mut header = (count as u64) << 1; // low bit 0: a run
    loop {
        let byte = (header & 0x7f) as u8;
        header >>= 7;
        if header == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
    let bytes = usize::from(width).div_ceil(8);
    out.extend(&value.to_le_bytes()[..bytes]);
}

/// The bits it takes to write `max`.
fn bit_width(max: u64) -> u8 {
    (u64::BITS - max.leading_zeros()) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_its_count_then_its_value() {
        let mut out = Vec::new();
        rle_run(&mut out, 3, 5, 3);
        assert_eq!(out, [6, 5]);
        out.clear();
        // 200 runs: a two-byte header; a 9-bit value: two bytes
        rle_run(&mut out, 200, 257, 9);
        assert_eq!(out, [0x90, 0x03, 0x01, 0x01]);
        assert_eq!((bit_width(0), bit_width(1), bit_width(255)), (0, 1, 8));
    }
}
