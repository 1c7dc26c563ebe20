//! Parquet corpora: a string or binary column of history JSON, read record batch by record batch
//! with the Arrow project's `parquet` crate, and written back with the same schema, the same
//! compression per column and every other column untouched.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{BinaryViewBuilder, GenericBinaryBuilder, GenericStringBuilder, StringViewBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::{CorpusError, Edit, Options, Row, RowError, RowLocation, Slot};

/// Reads record batches of a Parquet file.
pub(crate) struct ParquetReader {
    reader: ParquetRecordBatchReader,
    schema: SchemaRef,
    column: usize,
    id_column: Option<usize>,
    total_rows: u64,
    next_row: u64,
    /// The input's compression per leaf column, which a rewritten file keeps.
    compression: Vec<(ColumnPath, Compression)>,
    row_group_rows: usize,
}

impl ParquetReader {
    pub(crate) fn open(path: &Path, options: &Options) -> Result<Self, CorpusError> {
        if options.field.is_some() {
            return Err(CorpusError::Usage(
                "--field names a JSON Lines field; in Parquet the history's column is --column".to_owned(),
            ));
        }
        let Some(column_name) = &options.column else {
            return Err(CorpusError::Usage(
                "a Parquet corpus needs --column NAME: the string or binary column of history JSON".to_owned(),
            ));
        };
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?;
        let schema = builder.schema().clone();
        let column = find_column(&schema, column_name, "--column")?;
        let column_type = schema.field(column).data_type();
        if !is_text_or_binary(column_type) {
            return Err(CorpusError::Usage(format!(
                "column {column_name:?} is {column_type}; expected a string or binary column of history JSON"
            )));
        }
        let id_column = match &options.id_column {
            Some(name) => {
                let index = find_column(&schema, name, "--id-column")?;
                let id_type = schema.field(index).data_type();
                if !is_text_or_binary(id_type) && !id_type.is_integer() {
                    return Err(CorpusError::Usage(format!(
                        "--id-column {name:?} is {id_type}; msgflow names rows by string or integer keys"
                    )));
                }
                Some(index)
            }
            None => None,
        };
        let metadata = builder.metadata().clone();
        let total_rows = u64::try_from(metadata.file_metadata().num_rows()).unwrap_or_default();
        let compression = metadata
            .row_groups()
            .first()
            .map(|group| {
                group
                    .columns()
                    .iter()
                    .map(|chunk| (chunk.column_path().clone(), chunk.compression()))
                    .collect()
            })
            .unwrap_or_default();
        let batch_rows = options.batch_rows.max(1);
        let input_group_rows = metadata
            .row_groups()
            .first()
            .and_then(|group| usize::try_from(group.num_rows()).ok())
            .unwrap_or(batch_rows);
        // Row groups as in the input, but never more than a few batches: the writer holds a whole
        // row group in memory before it flushes it.
        let row_group_rows = input_group_rows.clamp(batch_rows, 8 * batch_rows);
        let reader = builder.with_batch_size(batch_rows).build()?;
        Ok(ParquetReader {
            reader,
            schema,
            column,
            id_column,
            total_rows,
            next_row: 0,
            compression,
            row_group_rows,
        })
    }

    pub(crate) fn total_rows(&self) -> u64 {
        self.total_rows
    }

    pub(crate) fn next_batch(&mut self) -> Result<Option<RecordBatchRows>, CorpusError> {
        let Some(batch) = self.reader.next().transpose()? else {
            return Ok(None);
        };
        let first_row = self.next_row;
        self.next_row += batch.num_rows() as u64;
        Ok(Some(RecordBatchRows {
            batch,
            column: self.column,
            id_column: self.id_column,
            first_row,
        }))
    }

    pub(crate) fn writer(&self, output: Box<dyn Write + Send>) -> Result<ParquetWriter, CorpusError> {
        let mut properties = WriterProperties::builder().set_max_row_group_row_count(Some(self.row_group_rows));
        for (path, compression) in &self.compression {
            properties = properties.set_column_compression(path.clone(), *compression);
        }
        let writer = ArrowWriter::try_new(output, self.schema.clone(), Some(properties.build()))?;
        Ok(ParquetWriter {
            writer,
            schema: self.schema.clone(),
            column: self.column,
        })
    }
}

fn find_column(schema: &SchemaRef, name: &str, option: &str) -> Result<usize, CorpusError> {
    schema.index_of(name).map_err(|_| {
        let names: Vec<String> = schema
            .fields()
            .iter()
            .map(|field| format!("{:?}", field.name()))
            .collect();
        CorpusError::Usage(format!(
            "{option} {name:?}: the file has no such column (its columns: {})",
            names.join(", ")
        ))
    })
}

fn is_text_or_binary(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

/// The bytes of a string or binary cell (`None` when null).
fn cell(array: &dyn Array, index: usize) -> Option<&[u8]> {
    if array.is_null(index) {
        return None;
    }
    Some(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(index).as_bytes(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(index).as_bytes(),
        DataType::Utf8View => array.as_string_view().value(index).as_bytes(),
        DataType::Binary => array.as_binary::<i32>().value(index),
        DataType::LargeBinary => array.as_binary::<i64>().value(index),
        DataType::BinaryView => array.as_binary_view().value(index),
        _ => return None,
    })
}

/// A row's key as JSON: a string, or an integer.
fn key(array: &dyn Array, index: usize) -> serde_json::Value {
    if array.is_null(index) {
        return serde_json::Value::Null;
    }
    macro_rules! integer {
        ($type:ty) => {
            serde_json::Value::from(array.as_primitive::<$type>().value(index))
        };
    }
    match array.data_type() {
        DataType::Int8 => integer!(Int8Type),
        DataType::Int16 => integer!(Int16Type),
        DataType::Int32 => integer!(Int32Type),
        DataType::Int64 => integer!(Int64Type),
        DataType::UInt8 => integer!(UInt8Type),
        DataType::UInt16 => integer!(UInt16Type),
        DataType::UInt32 => integer!(UInt32Type),
        DataType::UInt64 => integer!(UInt64Type),
        _ => cell(array, index)
            .map(|bytes| serde_json::Value::from(String::from_utf8_lossy(bytes).into_owned()))
            .unwrap_or_default(),
    }
}

/// One record batch and the column of its histories.
#[derive(Debug)]
pub struct RecordBatchRows {
    batch: RecordBatch,
    column: usize,
    id_column: Option<usize>,
    first_row: u64,
}

impl RecordBatchRows {
    pub(crate) fn len(&self) -> usize {
        self.batch.num_rows()
    }

    pub(crate) fn row(&self, index: usize) -> Row<'_> {
        let location = RowLocation {
            row: self.first_row + index as u64,
            line: None,
            id: self
                .id_column
                .map(|column| key(self.batch.column(column).as_ref(), index)),
        };
        let content = match cell(self.batch.column(self.column).as_ref(), index) {
            Some(bytes) => Ok(Cow::Borrowed(bytes)),
            None => Err(RowError::new("the cell is null: the row holds no history")),
        };
        Row {
            location,
            content,
            slot: Slot::Whole,
        }
    }
}

/// Writes record batches with the history column rebuilt.
pub(crate) struct ParquetWriter {
    writer: ArrowWriter<Box<dyn Write + Send>>,
    schema: SchemaRef,
    column: usize,
}

impl ParquetWriter {
    pub(crate) fn write(&mut self, rows: &RecordBatchRows, edits: &[Edit]) -> Result<(), CorpusError> {
        let batch = &rows.batch;
        let mut batch = if edits.iter().any(|edit| matches!(edit, Edit::Replace(_))) {
            let original = batch.column(self.column);
            let values = edits.iter().enumerate().map(|(index, edit)| match edit {
                Edit::Replace(bytes) => Some(bytes.as_slice()),
                Edit::Keep | Edit::Drop => cell(original.as_ref(), index),
            });
            let rebuilt = rebuild(original.data_type(), values)?;
            let mut columns = batch.columns().to_vec();
            columns[self.column] = rebuilt;
            RecordBatch::try_new(self.schema.clone(), columns)?
        } else {
            batch.clone()
        };
        if edits.iter().any(|edit| matches!(edit, Edit::Drop)) {
            let keep: BooleanArray = edits.iter().map(|edit| Some(!matches!(edit, Edit::Drop))).collect();
            batch = arrow_select::filter::filter_record_batch(&batch, &keep)?;
        }
        self.writer.write(&batch)?;
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<(), CorpusError> {
        let mut output = self.writer.into_inner()?;
        output.flush()?;
        Ok(())
    }
}

/// A column of `data_type` holding `values`.
fn rebuild<'a>(data_type: &DataType, values: impl Iterator<Item = Option<&'a [u8]>>) -> Result<ArrayRef, CorpusError> {
    fn text(bytes: &[u8]) -> Result<&str, CorpusError> {
        std::str::from_utf8(bytes)
            .map_err(|err| CorpusError::Usage(format!("a history to write into a string column is not UTF-8: {err}")))
    }
    macro_rules! build {
        ($builder:expr, $convert:expr) => {{
            let mut builder = $builder;
            for value in values {
                match value {
                    Some(bytes) => builder.append_value($convert(bytes)?),
                    None => builder.append_null(),
                }
            }
            Arc::new(builder.finish()) as ArrayRef
        }};
    }
    let binary = |bytes: &'a [u8]| Ok::<&'a [u8], CorpusError>(bytes);
    Ok(match data_type {
        DataType::Utf8 => build!(GenericStringBuilder::<i32>::new(), text),
        DataType::LargeUtf8 => build!(GenericStringBuilder::<i64>::new(), text),
        DataType::Utf8View => build!(StringViewBuilder::new(), text),
        DataType::Binary => build!(GenericBinaryBuilder::<i32>::new(), binary),
        DataType::LargeBinary => build!(GenericBinaryBuilder::<i64>::new(), binary),
        DataType::BinaryView => build!(BinaryViewBuilder::new(), binary),
        other => {
            return Err(CorpusError::Usage(format!(
                "cannot write histories into a column of type {other}"
            )))
        }
    })
}
