//! The native part of the `irinorm` Python package: a configured normalizer whose unit of
//! work is an Arrow array of strings. The Python modules around it (`irinorm/__init__.py`,
//! `irinorm/spark.py`) handle option defaults, rules files, pickling and the engines.
//! What the library states once it hands over rather than Python restating it: the table of
//! key options (`KEY_OPTIONS`), the lowest common rung of two records, the records of a
//! file (`read_records`) and the JSON of an explained record (`explain_json`).
//!
//! Every key goes through the library's record entry point, the one the command line uses,
//! so a string gives here the bytes `irinorm normalize` writes for the same line.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use arrow_array::builder::{
    GenericStringBuilder, Int64Builder, ListBuilder, StringBuilder, StringViewBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, GenericStringArray, OffsetSizeTrait, StringViewArray, StructArray,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields};
use arrow_select::take::take;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use pyo3_arrow::input::AnyArray;
use pyo3_arrow::{PyArray, PyChunkedArray};
use rayon::prelude::*;

use irinorm::internals::{
    explained_record_json, octets_as_text, records_of, OptionKind, KEY_OPTIONS,
};
use irinorm::{
    lowest_common_rung, CompareError, Migration, MigrationReport, Normalizer as Core, Notes,
    Observation, RulesText, Settings, KEY_VERSION,
};

/// Below this many rows a batch is never split over threads: the split would cost more
/// than it saves.
const MIN_ROWS_PER_PART: usize = 2048;

/// A normalizer configured once; its methods never raise for a bad record.
#[pyclass(name = "_Normalizer", module = "irinorm._irinorm", frozen)]
struct PyNormalizer {
    /// For the reports of records (`check_arrow`, `explain`): warnings included.
    core: Arc<Core>,
    /// For keys alone: the same normalizer without the checks that only give warnings.
    keys: Arc<Core>,
    /// The settings it was built from, for `lowest_common_rung`.
    settings: Settings,
}

/// Why a batch could not be turned into keys (never a bad record: those are nulls).
enum BatchError {
    /// The keys of one array do not fit its 32-bit offsets.
    Overflow,
    /// Anything Arrow itself reports.
    Arrow(ArrowError),
}

impl From<ArrowError> for BatchError {
    fn from(e: ArrowError) -> Self {
        BatchError::Arrow(e)
    }
}

impl From<BatchError> for PyErr {
    fn from(e: BatchError) -> PyErr {
        match e {
            BatchError::Overflow => PyOverflowError::new_err(
                "the keys of this array exceed the 2 GiB a string array can hold; \
                 pass a large_string array or smaller chunks",
            ),
            BatchError::Arrow(e) => PyValueError::new_err(e.to_string()),
        }
    }
}

#[pymethods]
impl PyNormalizer {
    #[new]
    #[pyo3(signature = (*, level=None, form=None, profile=None, rules_origin=None,
                        rules_text=None, drop_fragment=false, nfc=false, base=None,
                        strict=false, absolute=false, surt_scheme=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        level: Option<String>,
        form: Option<String>,
        profile: Option<String>,
        rules_origin: Option<String>,
        rules_text: Option<String>,
        drop_fragment: bool,
        nfc: bool,
        base: Option<String>,
        strict: bool,
        absolute: bool,
        surt_scheme: bool,
    ) -> PyResult<Self> {
        let rules = rules_text.map(|text| RulesText {
            origin: rules_origin.unwrap_or_else(|| "rules".to_owned()),
            text,
        });
        let s = Settings::default()
            .with_level(level)
            .with_form(form)
            .with_profile(profile)
            .with_rules(rules)
            .with_drop_fragment(drop_fragment)
            .with_nfc(nfc)
            .with_base(base)
            .with_strict(strict)
            .with_absolute(absolute)
            .with_surt_scheme(surt_scheme);
        let core = Core::from_settings(&s).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyNormalizer {
            keys: Arc::new(core.clone().without_bidi_warnings()),
            core: Arc::new(core),
            settings: s,
        })
    }

    /// The name of the lowest rung at which `a` and `b` have the same key under these
    /// settings (the library's `lowest_common_rung`, `irinorm compare`), or None.
    fn lowest_common_rung(&self, a: &str, b: &str) -> PyResult<Option<&'static str>> {
        match lowest_common_rung(a, b, &self.settings) {
            Ok(rung) => Ok(rung.map(|level| level.name())),
            Err(CompareError::A(e)) => Err(PyValueError::new_err(format!("a: {e}"))),
            Err(CompareError::B(e)) => Err(PyValueError::new_err(format!("b: {e}"))),
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    }

    /// The key of one record, or None when it is invalid (or None).
    fn normalize(&self, url: Option<&Bound<'_, PyString>>) -> PyResult<Option<String>> {
        let Some(url) = url else { return Ok(None) };
        let text = url.to_cow()?;
        let mut out = String::with_capacity(text.len() + 8);
        let mut notes = Notes::default();
        Ok(self
            .keys
            .normalize_record_into(&text, &mut out, &mut notes)
            .ok()
            .map(|()| out))
    }

    /// The keys of an iterable of records: None for an invalid record and for anything that
    /// is not a str.
    fn normalize_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        let mut out = String::new();
        let mut notes = Notes::default();
        for item in items.try_iter()? {
            let item = item?;
            let key = match item.cast::<PyString>() {
                Ok(s) => {
                    out.clear();
                    notes.clear();
                    let text = s.to_cow()?;
                    match self.keys.normalize_record_into(&text, &mut out, &mut notes) {
                        Ok(()) => Some(PyString::new(py, &out)),
                        Err(_) => None,
                    }
                }
                Err(_) => None,
            };
            list.append(key)?;
        }
        Ok(list)
    }

    /// Keys of an Arrow string array (or stream of arrays), as a pyarrow Array (or
    /// ChunkedArray); null where the record is null or invalid.
    #[pyo3(signature = (array, threads=1))]
    fn normalize_arrow<'py>(
        &self,
        py: Python<'py>,
        array: AnyArray,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let core = self.keys.clone();
        let threads = resolve_threads(threads);
        map_string_arrays(py, array, keys_type, |a| keys_of(&core, a, threads))
    }

    /// Per record: the key, the error (kind, column, message) and the warnings, as a struct
    /// array (a ChunkedArray for a stream).
    fn check_arrow<'py>(&self, py: Python<'py>, array: AnyArray) -> PyResult<Bound<'py, PyAny>> {
        let core = self.core.clone();
        map_string_arrays(py, array, check_type, |a| check_of(&core, a))
    }

    /// What moving from these keys to those of `to` does to the records of a string array
    /// (or stream; null rows are not records): the JSON object of `irinorm migrate
    /// --format json` (the library's `MigrationSummary::to_json`).
    fn migration_json(
        &self,
        py: Python<'_>,
        to: &PyNormalizer,
        array: AnyArray,
    ) -> PyResult<String> {
        let migration = Migration::new((*self.core).clone(), (*to.core).clone());
        let chunks: Vec<ArrayRef> = match array {
            AnyArray::Array(a) => vec![a.into_inner().0],
            AnyArray::Stream(s) => s
                .into_reader()?
                .collect::<Result<Vec<ArrayRef>, ArrowError>>()
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
        };
        for chunk in &chunks {
            check_string_type(chunk.data_type())?;
        }
        let chunks = (chunks.iter().map(decoded))
            .collect::<Result<Vec<ArrayRef>, ArrowError>>()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(py.detach(|| {
            let (mut report, mut obs) = (MigrationReport::default(), Observation::default());
            for chunk in &chunks {
                for raw in (0..chunk.len()).filter_map(|i| text_of(chunk, i)) {
                    migration.observe(raw.as_bytes(), &mut obs);
                    report.add(&obs);
                }
            }
            report.summary().to_json()
        }))
    }

    /// The key of one record with the steps that made it, its error and its warnings, as
    /// the JSON object the library writes for an explained record (`ladder::json`).
    fn explain_json(&self, url: &str) -> String {
        explained_record_json(&self.core, url)
    }
}

/// A pyarrow Array of `array` (handed over through the Arrow C data interface).
fn to_pyarrow_array(
    py: Python<'_>,
    array: ArrayRef,
    field: FieldRef,
) -> PyResult<Bound<'_, PyAny>> {
    let exported = PyArray::new(array, field).into_pyobject(py)?;
    py.import("pyarrow")?.getattr("array")?.call1((exported,))
}

/// `threads` as given, 0 meaning every core.
fn resolve_threads(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// Refuses an array that is not of strings, naming its type as pyarrow does.
fn check_string_type(dt: &DataType) -> PyResult<()> {
    let strings = |dt: &DataType| {
        matches!(
            dt,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null
        )
    };
    match dt {
        DataType::Dictionary(key, values) if key.is_dictionary_key_type() && strings(values) => {
            Ok(())
        }
        dt if strings(dt) => Ok(()),
        other => Err(PyTypeError::new_err(format!(
            "expected an Arrow array of strings (string, large_string or string_view, or a \
             dictionary of them), got {}",
            pyarrow_type_name(other)
        ))),
    }
}

/// The name pyarrow gives the type `dt` (`int64`, `large_string`,
/// `dictionary<values=string, indices=int32, ordered=0>`, `list<item: string>`), as its
/// messages and `repr` show it; Arrow's own name, lowercased, for the rarer types.
fn pyarrow_type_name(dt: &DataType) -> String {
    let name = match dt {
        DataType::Null => "null",
        DataType::Boolean => "bool",
        DataType::Int8 => "int8",
        DataType::Int16 => "int16",
        DataType::Int32 => "int32",
        DataType::Int64 => "int64",
        DataType::UInt8 => "uint8",
        DataType::UInt16 => "uint16",
        DataType::UInt32 => "uint32",
        DataType::UInt64 => "uint64",
        DataType::Float16 => "halffloat",
        DataType::Float32 => "float",
        DataType::Float64 => "double",
        DataType::Utf8 => "string",
        DataType::LargeUtf8 => "large_string",
        DataType::Utf8View => "string_view",
        DataType::Binary => "binary",
        DataType::LargeBinary => "large_binary",
        DataType::BinaryView => "binary_view",
        DataType::List(f) | DataType::LargeList(f) => {
            let large = if matches!(dt, DataType::LargeList(_)) {
                "large_"
            } else {
                ""
            };
            return format!(
                "{large}list<{}: {}>",
                f.name(),
                pyarrow_type_name(f.data_type())
            );
        }
        DataType::Dictionary(key, values) => {
            return format!(
                "dictionary<values={}, indices={}, ordered=0>",
                pyarrow_type_name(values),
                pyarrow_type_name(key)
            )
        }
        other => return other.to_string().to_lowercase(),
    };
    name.to_owned()
}

/// A dictionary-encoded array as the plain array of its values (other arrays as they are).
fn decoded(input: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    match input.data_type() {
        DataType::Dictionary(..) => {
            let d = input.as_any_dictionary();
            take(d.values(), d.keys(), None)
        }
        _ => Ok(input.clone()),
    }
}

/// The type of the keys of an input of type `dt`: the same string type (an all-null input
/// stays an all-null array).
/// Applies `per_array` to a string array, or to every array of a stream (then returned as
/// a ChunkedArray), with the GIL released; `out_type` is the type it gives for an input
/// type (what a stream's field says when it has no array at all).
fn map_string_arrays<'py>(
    py: Python<'py>,
    array: AnyArray,
    out_type: fn(&DataType) -> DataType,
    per_array: impl Fn(&ArrayRef) -> Result<ArrayRef, BatchError> + Sync + Send,
) -> PyResult<Bound<'py, PyAny>> {
    match array {
        AnyArray::Array(a) => {
            let (input, field) = a.into_inner();
            check_string_type(input.data_type())?;
            let out = py.detach(|| per_array(&input))?;
            let field = output_field(&field, out.data_type());
            to_pyarrow_array(py, out, field)
        }
        AnyArray::Stream(s) => {
            let reader = s.into_reader()?;
            let field = reader.field();
            check_string_type(field.data_type())?;
            let chunks = reader
                .collect::<Result<Vec<ArrayRef>, ArrowError>>()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let out = py.detach(|| chunks.iter().map(&per_array).collect::<Result<Vec<_>, _>>())?;
            let field = output_field(&field, &out_type(field.data_type()));
            PyChunkedArray::try_new(out, field)?.into_pyarrow(py)
        }
    }
}

fn keys_type(dt: &DataType) -> DataType {
    dt.clone()
}

/// The struct type `check_arrow` returns for an input of type `dt`.
fn check_type(dt: &DataType) -> DataType {
    DataType::Struct(check_fields(dt))
}

/// The fields of [`check_type`]: the key of the input's string type (of its values, for a
/// dictionary).
fn check_fields(dt: &DataType) -> Fields {
    let key = match dt {
        DataType::Dictionary(_, values) => return check_fields(values),
        DataType::LargeUtf8 => DataType::LargeUtf8,
        DataType::Utf8View => DataType::Utf8View,
        _ => DataType::Utf8,
    };
    Fields::from(vec![
        Field::new("key", key, true),
        Field::new("error_kind", DataType::Utf8, true),
        Field::new("error_column", DataType::Int64, true),
        Field::new("error_message", DataType::Utf8, true),
        Field::new(
            "warnings",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
    ])
}

/// The output field: the input's name, the output's type, nullable, no metadata.
fn output_field(input: &FieldRef, dt: &DataType) -> FieldRef {
    Arc::new(Field::new(input.name(), dt.clone(), true))
}

/// A rayon pool of `threads` workers, one per size, made on first use in this process (a
/// forked child makes its own: the parent's workers are not there).
fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    /// By thread count: the pool and the process that made it.
    type Pools = HashMap<usize, (u32, Arc<rayon::ThreadPool>)>;
    static POOLS: OnceLock<Mutex<Pools>> = OnceLock::new();
    let pid = std::process::id();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((p, pool)) = pools.get(&threads) {
        if *p == pid {
            return pool.clone();
        }
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("irinorm-{i}"))
            .build()
            .expect("starting the irinorm worker threads"),
    );
    pools.insert(threads, (pid, pool.clone()));
    pool
}

/// Runs `f` over contiguous row ranges of `0..rows`: one range on one thread, else about two
/// per thread on a pool; the results come back in row order.
fn in_parts<T: Send>(rows: usize, threads: usize, f: impl Fn(usize, usize) -> T + Sync) -> Vec<T> {
    let parts = (threads * 2).min(rows / MIN_ROWS_PER_PART);
    if threads <= 1 || parts <= 1 {
        return vec![f(0, rows)];
    }
    pool(threads).install(|| {
        (0..parts)
            .into_par_iter()
            .map(|j| f(j * rows / parts, (j + 1) * rows / parts))
            .collect()
    })
}

/// The keys of one array (any string type; a null-typed array is its own result). A
/// dictionary-encoded array gives one with the same indices: its values are keyed once.
fn keys_of(core: &Core, input: &ArrayRef, threads: usize) -> Result<ArrayRef, BatchError> {
    match input.data_type() {
        DataType::Dictionary(..) => {
            let d = input.as_any_dictionary();
            Ok(d.with_values(keys_of(core, d.values(), threads)?))
        }
        DataType::Utf8 => {
            keys_offsets::<i32>(core, input.as_any().downcast_ref().unwrap(), threads)
        }
        DataType::LargeUtf8 => {
            keys_offsets::<i64>(core, input.as_any().downcast_ref().unwrap(), threads)
        }
        DataType::Utf8View => keys_view(core, input.as_any().downcast_ref().unwrap(), threads),
        _ => Ok(input.clone()),
    }
}

/// Keys of rows `start..end` of a string array, with offsets from 0.
struct Part<O> {
    values: String,
    offsets: Vec<O>,
    valid: BooleanBufferBuilder,
    nulls: usize,
}

fn keys_range<O: OffsetSizeTrait>(
    core: &Core,
    input: &GenericStringArray<O>,
    start: usize,
    end: usize,
) -> Result<Part<O>, BatchError> {
    let rows = end - start;
    let offsets_in = input.value_offsets();
    let bytes_in = (offsets_in[end] - offsets_in[start]).as_usize();
    let mut values = String::with_capacity(bytes_in + bytes_in / 8 + 64);
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(O::usize_as(0));
    let mut valid = BooleanBufferBuilder::new(rows);
    let mut nulls = 0;
    let mut notes = Notes::default();
    let in_nulls = input.nulls();
    for i in start..end {
        let ok = if in_nulls.is_some_and(|n| n.is_null(i)) {
            false
        } else {
            let ok = core
                .normalize_record_into(input.value(i), &mut values, &mut notes)
                .is_ok();
            notes.clear();
            ok
        };
        nulls += usize::from(!ok);
        valid.append(ok);
        offsets.push(O::from_usize(values.len()).ok_or(BatchError::Overflow)?);
    }
    Ok(Part {
        values,
        offsets,
        valid,
        nulls,
    })
}

fn keys_offsets<O: OffsetSizeTrait>(
    core: &Core,
    input: &GenericStringArray<O>,
    threads: usize,
) -> Result<ArrayRef, BatchError> {
    let parts = in_parts(input.len(), threads, |s, e| keys_range(core, input, s, e))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let mut parts = parts.into_iter();
    let mut all = parts.next().expect("at least one part");
    for p in parts {
        let base = all.values.len();
        all.values.push_str(&p.values);
        for &o in &p.offsets[1..] {
            let shifted = O::from_usize(base + o.as_usize()).ok_or(BatchError::Overflow)?;
            all.offsets.push(shifted);
        }
        all.valid.append_buffer(&p.valid.finish_cloned());
        all.nulls += p.nulls;
    }
    let nulls = (all.nulls > 0).then(|| NullBuffer::new(all.valid.finish()));
    // SAFETY: the offsets start at 0, never decrease and end at the length of `values`; each
    // slice between two of them is a whole key, pushed as a `&str`, so valid UTF-8.
    let array = unsafe {
        GenericStringArray::<O>::new_unchecked(
            OffsetBuffer::new_unchecked(ScalarBuffer::from(all.offsets)),
            Buffer::from_vec(all.values.into_bytes()),
            nulls,
        )
    };
    Ok(Arc::new(array))
}

fn keys_view(core: &Core, input: &StringViewArray, threads: usize) -> Result<ArrayRef, BatchError> {
    let parts = in_parts(input.len(), threads, |start, end| {
        let mut b = StringViewBuilder::with_capacity(end - start);
        let mut key = String::new();
        let mut notes = Notes::default();
        for i in start..end {
            if input.is_null(i) {
                b.append_null();
                continue;
            }
            key.clear();
            notes.clear();
            match core.normalize_record_into(input.value(i), &mut key, &mut notes) {
                Ok(()) => b.append_value(&key),
                Err(_) => b.append_null(),
            }
        }
        Arc::new(b.finish()) as ArrayRef
    });
    if parts.len() == 1 {
        return Ok(parts.into_iter().next().unwrap());
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    Ok(arrow_select::concat::concat(&refs)?)
}

/// The builder of the `key` column of `check_arrow`, in the input's string type.
enum KeyBuilder {
    Utf8(GenericStringBuilder<i32>),
    Large(GenericStringBuilder<i64>),
    View(StringViewBuilder),
}

impl KeyBuilder {
    fn append(&mut self, key: Option<&str>) {
        match self {
            KeyBuilder::Utf8(b) => b.append_option(key),
            KeyBuilder::Large(b) => b.append_option(key),
            KeyBuilder::View(b) => b.append_option(key),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            KeyBuilder::Utf8(b) => Arc::new(b.finish()),
            KeyBuilder::Large(b) => Arc::new(b.finish()),
            KeyBuilder::View(b) => Arc::new(b.finish()),
        }
    }
}

/// The record-by-record report of one array.
fn check_of(core: &Core, input: &ArrayRef) -> Result<ArrayRef, BatchError> {
    if let DataType::Dictionary(..) = input.data_type() {
        // Each value checked once, then a row per index; a null index is a null record,
        // whose fields are null as for any null record (the row itself is not).
        let d = input.as_any_dictionary();
        let taken = take(&check_of(core, d.values())?, d.keys(), None)?;
        let (fields, columns, _) = taken.as_struct().clone().into_parts();
        return Ok(Arc::new(StructArray::try_new(fields, columns, None)?));
    }
    Ok(check_plain(core, input))
}

/// [`check_of`] for an array of strings.
fn check_plain(core: &Core, input: &ArrayRef) -> ArrayRef {
    let rows = input.len();
    let dt = input.data_type();
    let mut keys = match dt {
        DataType::LargeUtf8 => KeyBuilder::Large(GenericStringBuilder::new()),
        DataType::Utf8View => KeyBuilder::View(StringViewBuilder::new()),
        _ => KeyBuilder::Utf8(GenericStringBuilder::new()),
    };
    let mut kinds = StringBuilder::new();
    let mut columns = Int64Builder::with_capacity(rows);
    let mut messages = StringBuilder::new();
    let mut warnings = ListBuilder::new(StringBuilder::new());
    let mut key = String::new();
    let mut notes = Notes::default();
    for i in 0..rows {
        let Some(raw) = text_of(input, i) else {
            keys.append(None);
            kinds.append_null();
            columns.append_null();
            messages.append_null();
            warnings.append_null();
            continue;
        };
        key.clear();
        notes.clear();
        match core.normalize_record_into(raw, &mut key, &mut notes) {
            Ok(()) => {
                keys.append(Some(&key));
                kinds.append_null();
                columns.append_null();
                messages.append_null();
            }
            Err(e) => {
                keys.append(None);
                kinds.append_value(e.kind.name());
                columns.append_value(e.column as i64);
                messages.append_value(e.message);
            }
        }
        for w in &notes.warnings {
            warnings.values().append_value(w.kind.name());
        }
        warnings.append(true);
    }
    let fields = check_fields(dt);
    let columns: Vec<ArrayRef> = vec![
        keys.finish(),
        Arc::new(kinds.finish()),
        Arc::new(columns.finish()),
        Arc::new(messages.finish()),
        Arc::new(warnings.finish()),
    ];
    Arc::new(StructArray::new(fields, columns, None))
}

/// Row `i` of a string array (checked by [`check_string_type`]), `None` where it is null.
fn text_of(input: &ArrayRef, i: usize) -> Option<&str> {
    match input.data_type() {
        DataType::Utf8 => text_at::<i32>(input, i),
        DataType::LargeUtf8 => text_at::<i64>(input, i),
        DataType::Utf8View => {
            let a = input.as_any().downcast_ref::<StringViewArray>().unwrap();
            (!a.is_null(i)).then(|| a.value(i))
        }
        _ => None,
    }
}

fn text_at<O: OffsetSizeTrait>(input: &ArrayRef, i: usize) -> Option<&str> {
    let a = input
        .as_any()
        .downcast_ref::<GenericStringArray<O>>()
        .unwrap();
    (!a.is_null(i)).then(|| a.value(i))
}

/// The native module; the public API is `irinorm` (Python) over it.
#[pymodule]
fn _irinorm(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNormalizer>()?;
    m.add("KEY_VERSION", KEY_VERSION)?;
    m.add("KEY_OPTIONS", key_options(m.py())?)?;
    m.add_function(wrap_pyfunction!(read_records, m)?)?;
    Ok(())
}

/// The records of the whole input `data` as the command line reads them (the library's
/// `records_of`), each as text with every octet that is not UTF-8 written `%XX`.
#[pyfunction]
fn read_records(data: &[u8]) -> Vec<String> {
    records_of(data)
        .map(|record| octets_as_text(record).into_owned())
        .collect()
}

/// The library's table of key options ([`KEY_OPTIONS`]) as a tuple of
/// `(name, kind, choices, default, help)`: the Python package builds its signatures from it.
fn key_options(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    let rows = KEY_OPTIONS.iter().map(|o| {
        let (kind, choices): (&str, &[&str]) = match o.kind {
            OptionKind::Flag => ("flag", &[]),
            OptionKind::Choice(names) => ("choice", names),
            OptionKind::File => ("file", &[]),
            _ => ("text", &[]),
        };
        (o.field, kind, PyTuple::new(py, choices)?, o.default, o.help).into_pyobject(py)
    });
    PyTuple::new(py, rows.collect::<PyResult<Vec<_>>>()?)
}
