//! Column vectors → Arrow arrays, one helper per column shape of `schema::Kind`.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder, StringDictionaryBuilder, StructBuilder, UInt64Builder};
use arrow_array::types::{UInt32Type, UInt8Type};
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int64Array, PrimitiveArray, RecordBatch, StringArray,
    TimestampNanosecondArray, UInt16Array, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::{ArrowError, Schema};

use super::schema::Kind;
use crate::analyse::finding::Value;

pub fn u8s(v: Vec<u8>) -> ArrayRef {
    Arc::new(UInt8Array::from(v))
}
pub fn u16s(v: Vec<u16>) -> ArrayRef {
    Arc::new(UInt16Array::from(v))
}
pub fn u32s(v: Vec<u32>) -> ArrayRef {
    Arc::new(UInt32Array::from(v))
}
pub fn u64s(v: Vec<u64>) -> ArrayRef {
    Arc::new(UInt64Array::from(v))
}
pub fn i64s(v: Vec<i64>) -> ArrayRef {
    Arc::new(Int64Array::from(v))
}
pub fn f64s(v: Vec<f64>) -> ArrayRef {
    Arc::new(Float64Array::from(v))
}
pub fn bools(v: Vec<bool>) -> ArrayRef {
    Arc::new(BooleanArray::from(v))
}
pub fn opt_u8s(v: Vec<Option<u8>>) -> ArrayRef {
    Arc::new(UInt8Array::from(v))
}
pub fn opt_u16s(v: Vec<Option<u16>>) -> ArrayRef {
    Arc::new(UInt16Array::from(v))
}
pub fn opt_u32s(v: Vec<Option<u32>>) -> ArrayRef {
    Arc::new(UInt32Array::from(v))
}
pub fn opt_u64s(v: Vec<Option<u64>>) -> ArrayRef {
    Arc::new(UInt64Array::from(v))
}
pub fn opt_i64s(v: Vec<Option<i64>>) -> ArrayRef {
    Arc::new(Int64Array::from(v))
}
pub fn opt_f64s(v: Vec<Option<f64>>) -> ArrayRef {
    Arc::new(Float64Array::from(v))
}
pub fn opt_bools(v: Vec<Option<bool>>) -> ArrayRef {
    Arc::new(BooleanArray::from(v))
}

pub fn strs<S: AsRef<str>>(v: impl IntoIterator<Item = S>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(v))
}

/// Text stored once per distinct value.
pub fn words<S: AsRef<str>>(v: impl IntoIterator<Item = S>) -> ArrayRef {
    let mut b = StringDictionaryBuilder::<UInt32Type>::new();
    for s in v {
        b.append_value(s);
    }
    Arc::new(b.finish())
}

/// Nullable text stored once per distinct value.
pub fn opt_words<S: AsRef<str>>(v: impl IntoIterator<Item = Option<S>>) -> ArrayRef {
    let mut b = StringDictionaryBuilder::<UInt32Type>::new();
    for s in v {
        b.append_option(s);
    }
    Arc::new(b.finish())
}

pub fn opt_strs<S: AsRef<str>>(v: impl IntoIterator<Item = Option<S>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(v))
}

/// Nanoseconds since the epoch as a UTC timestamp column.
pub fn times(v: Vec<i64>) -> ArrayRef {
    Arc::new(TimestampNanosecondArray::from(v).with_timezone("UTC"))
}

/// Nullable times (ns since the epoch, UTC).
pub fn opt_times(v: Vec<Option<i64>>) -> ArrayRef {
    Arc::new(TimestampNanosecondArray::from(v).with_timezone("UTC"))
}

/// Small codes into a fixed list of names (pandas reads a Categorical with exactly these
/// categories, in this order). Codes outside the list are nulls.
pub fn codes(v: Vec<u8>, names: &[&str]) -> ArrayRef {
    let n = names.len();
    let keys: PrimitiveArray<UInt8Type> = v.into_iter().map(|c| ((c as usize) < n).then_some(c)).collect();
    Arc::new(DictionaryArray::<UInt8Type>::try_new(keys, Arc::new(StringArray::from_iter_values(names))).unwrap())
}

/// Nullable codes into a fixed list of names.
pub fn opt_codes(v: Vec<Option<u8>>, names: &[&str]) -> ArrayRef {
    let keys: PrimitiveArray<UInt8Type> = v.into_iter().map(|c| c.filter(|&c| (c as usize) < names.len())).collect();
    Arc::new(DictionaryArray::<UInt8Type>::try_new(keys, Arc::new(StringArray::from_iter_values(names))).unwrap())
}

/// u32 codes into a list of distinct strings (addresses).
pub fn addr_codes(v: Vec<u32>, values: impl IntoIterator<Item = String>) -> ArrayRef {
    let keys = PrimitiveArray::<UInt32Type>::from(v);
    let values = StringArray::from_iter_values(values);
    Arc::new(DictionaryArray::<UInt32Type>::try_new(keys, Arc::new(values)).unwrap())
}

pub fn frame_lists<'a>(v: impl IntoIterator<Item = &'a [u64]>) -> ArrayRef {
    let mut b = ListBuilder::new(UInt64Builder::new()).with_field(item_field(Kind::FrameList));
    for frames in v {
        b.values().append_slice(frames);
        b.append(true);
    }
    Arc::new(b.finish())
}

pub fn text_lists<S: AsRef<str>>(v: impl IntoIterator<Item = Vec<S>>) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new()).with_field(item_field(Kind::TextList));
    for texts in v {
        for t in texts {
            b.values().append_value(t);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

fn item_field(kind: Kind) -> Arc<arrow_schema::Field> {
    match kind.data_type() {
        arrow_schema::DataType::List(f) => f,
        _ => unreachable!("not a list kind"),
    }
}

/// A finding's values: `{name, unit, number, text}` per value.
pub fn value_lists<'a>(v: impl IntoIterator<Item = &'a [(&'static str, Value)]>) -> ArrayRef {
    let field = item_field(Kind::Values);
    let arrow_schema::DataType::Struct(fields) = field.data_type().clone() else { unreachable!() };
    let mut b = ListBuilder::new(StructBuilder::from_fields(fields, 0)).with_field(field);
    for values in v {
        let s = b.values();
        for (name, value) in values {
            s.field_builder::<StringBuilder>(0).unwrap().append_value(name);
            s.field_builder::<StringBuilder>(1).unwrap().append_value(value.unit());
            s.field_builder::<arrow_array::builder::Float64Builder>(2).unwrap().append_option(value.number());
            let text = match value {
                Value::Text(t) => Some(t.as_ref()),
                _ => None,
            };
            s.field_builder::<StringBuilder>(3).unwrap().append_option(text);
            s.append(true);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

/// A record batch of `schema` from its columns in order (types and nullability checked).
pub fn batch(schema: Arc<Schema>, columns: Vec<ArrayRef>) -> Result<RecordBatch, ArrowError> {
    RecordBatch::try_new(schema, columns)
}
