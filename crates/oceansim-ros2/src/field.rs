//! How each Rust field type maps to a ROS field: its type in the
//! description, its CDR encoding and its JSON view.

use crate::cdr::{CdrReader, CdrWriter};
use crate::description::{BaseType, Container, FieldType};
use crate::error::Result;

/// A value that is one field of a message: a primitive, a `String`, a
/// nested message, or an array or sequence of those.
pub trait CdrField: Sized {
    /// The field's ROS type.
    const FIELD_TYPE: FieldType;
    /// Fewest bytes one value takes on the wire, padding aside; bounds the
    /// element counts a decoder accepts.
    const MIN_SIZE: usize;
    /// Appends the value.
    fn write(&self, w: &mut CdrWriter);
    /// Reads a value.
    fn read(r: &mut CdrReader<'_>) -> Result<Self>;
    /// Appends the value as JSON (floats exact, non-finite as `NaN` or
    /// `Infinity`, which Python's `json` reads).
    fn write_json(&self, out: &mut String);
    /// The value a default-constructed message holds: zero, empty, or the
    /// `.msg` default.
    fn default_value() -> Self;
}

/// A field type that can be an element of an array or sequence (anything
/// but an array or sequence itself).
pub trait CdrElement: CdrField {
    /// Appends elements one after another (arrays and sequences).
    fn write_slice(items: &[Self], w: &mut CdrWriter) {
        for item in items {
            item.write(w);
        }
    }

    /// Reads `n` elements; `n` was already checked against the bytes left.
    fn read_vec(r: &mut CdrReader<'_>, n: usize) -> Result<Vec<Self>> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(Self::read(r)?);
        }
        Ok(out)
    }
}

macro_rules! primitive {
    ($($ty:ty => $base:ident, $write:ident, $read:ident;)*) => {$(
        impl CdrField for $ty {
            const FIELD_TYPE: FieldType = FieldType::single(BaseType::$base);
            const MIN_SIZE: usize = std::mem::size_of::<$ty>();
            fn write(&self, w: &mut CdrWriter) {
                w.$write(*self);
            }
            fn read(r: &mut CdrReader<'_>) -> Result<Self> {
                r.$read()
            }
            fn write_json(&self, out: &mut String) {
                out.push_str(&self.to_string());
            }
            fn default_value() -> Self {
                Self::default()
            }
        }
    )*};
}

primitive! {
    i8 => Int8, write_i8, read_i8;
    u16 => UInt16, write_u16, read_u16;
    i16 => Int16, write_i16, read_i16;
    u32 => UInt32, write_u32, read_u32;
    i32 => Int32, write_i32, read_i32;
    u64 => UInt64, write_u64, read_u64;
    i64 => Int64, write_i64, read_i64;
    bool => Bool, write_bool, read_bool;
}

impl CdrElement for i8 {}
impl CdrElement for u16 {}
impl CdrElement for i16 {}
impl CdrElement for u32 {}
impl CdrElement for i32 {}
impl CdrElement for u64 {}
impl CdrElement for i64 {}
impl CdrElement for bool {}

impl CdrField for u8 {
    const FIELD_TYPE: FieldType = FieldType::single(BaseType::UInt8);
    const MIN_SIZE: usize = 1;
    fn write(&self, w: &mut CdrWriter) {
        w.write_u8(*self);
    }
    fn read(r: &mut CdrReader<'_>) -> Result<Self> {
        r.read_u8()
    }
    fn write_json(&self, out: &mut String) {
        out.push_str(&self.to_string());
    }
    fn default_value() -> Self {
        Self::default()
    }
}

// Images and point clouds are megabytes of u8: copy them whole.
impl CdrElement for u8 {
    fn write_slice(items: &[Self], w: &mut CdrWriter) {
        w.write_bytes(items);
    }
    fn read_vec(r: &mut CdrReader<'_>, n: usize) -> Result<Vec<Self>> {
        r.read_bytes(n).map(<[u8]>::to_vec)
    }
}

fn float_json(value: f64, out: &mut String) {
    if value.is_finite() {
        // Debug is the shortest text that reads back to the same f64.
        out.push_str(&format!("{value:?}"));
    } else if value.is_nan() {
        out.push_str("NaN");
    } else if value > 0.0 {
        out.push_str("Infinity");
    } else {
        out.push_str("-Infinity");
    }
}

impl CdrField for f32 {
    const FIELD_TYPE: FieldType = FieldType::single(BaseType::Float32);
    const MIN_SIZE: usize = 4;
    fn write(&self, w: &mut CdrWriter) {
        w.write_f32(*self);
    }
    fn read(r: &mut CdrReader<'_>) -> Result<Self> {
        r.read_f32()
    }
    fn write_json(&self, out: &mut String) {
        // Widened exactly, so a reader that holds float32 as double compares equal.
        float_json(f64::from(*self), out);
    }
    fn default_value() -> Self {
        Self::default()
    }
}

impl CdrField for f64 {
    const FIELD_TYPE: FieldType = FieldType::single(BaseType::Float64);
    const MIN_SIZE: usize = 8;
    fn write(&self, w: &mut CdrWriter) {
        w.write_f64(*self);
    }
    fn read(r: &mut CdrReader<'_>) -> Result<Self> {
        r.read_f64()
    }
    fn write_json(&self, out: &mut String) {
        float_json(*self, out);
    }
    fn default_value() -> Self {
        Self::default()
    }
}

impl CdrElement for f32 {}
impl CdrElement for f64 {}

impl CdrField for String {
    const FIELD_TYPE: FieldType = FieldType::single(BaseType::String);
    const MIN_SIZE: usize = 4;
    fn write(&self, w: &mut CdrWriter) {
        w.write_string(self);
    }
    fn read(r: &mut CdrReader<'_>) -> Result<Self> {
        r.read_string()
    }
    fn write_json(&self, out: &mut String) {
        json_string(self, out);
    }
    fn default_value() -> Self {
        Self::default()
    }
}

impl CdrElement for String {}

/// Appends `s` as a JSON string.
pub(crate) fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_list<T: CdrField>(items: &[T], out: &mut String) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write_json(out);
    }
    out.push(']');
}

impl<T: CdrElement> CdrField for Vec<T> {
    const FIELD_TYPE: FieldType = FieldType {
        base: T::FIELD_TYPE.base,
        container: Container::Sequence,
    };
    const MIN_SIZE: usize = 4;
    // Elements align themselves, so an empty sequence has no padding after
    // its count, as Fast-CDR writes it.
    fn write(&self, w: &mut CdrWriter) {
        w.write_len(self.len());
        T::write_slice(self, w);
    }
    fn read(r: &mut CdrReader<'_>) -> Result<Self> {
        let n = r.read_len(T::MIN_SIZE)?;
        T::read_vec(r, n)
    }
    fn write_json(&self, out: &mut String) {
        json_list(self, out);
    }
    fn default_value() -> Self {
        Vec::new()
    }
}

impl<T: CdrElement, const N: usize> CdrField for [T; N] {
    const FIELD_TYPE: FieldType = FieldType {
        base: T::FIELD_TYPE.base,
        container: Container::Array(N),
    };
    const MIN_SIZE: usize = N * T::MIN_SIZE;
    fn write(&self, w: &mut CdrWriter) {
        T::write_slice(self, w);
    }
    fn read(r: &mut CdrReader<'_>) -> Result<Self> {
        let items = T::read_vec(r, N)?;
        match items.try_into() {
            Ok(array) => Ok(array),
            Err(_) => unreachable!("read_vec returns exactly N elements"),
        }
    }
    fn write_json(&self, out: &mut String) {
        json_list(self, out);
    } // Default is implemented for arrays of at most 32 only (covariances are 36).
    fn default_value() -> Self {
        std::array::from_fn(|_| T::default_value())
    }
}
