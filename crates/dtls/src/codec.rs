//! Big-endian reader/writer helpers shared by the record and handshake codecs.

use crate::error::v13::{Field, MessageError};
use crate::error::Error;
use crate::error::Malformed;

/// A bounds-checked reader over a byte slice.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Start reading `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }
    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// True when everything was read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    /// The unread rest.
    pub fn rest(&mut self) -> &'a [u8] {
        let r = &self.buf[self.pos..];
        self.pos = self.buf.len();
        r
    }
    /// Take `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.remaining() < n {
            return Err(Error::Decode(Malformed::Truncated));
        }
        let r = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(r)
    }
    /// One byte.
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }
    /// Big-endian u16.
    pub fn u16(&mut self) -> Result<u16, Error> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    /// Big-endian 24-bit integer.
    pub fn u24(&mut self) -> Result<u32, Error> {
        let b = self.take(3)?;
        Ok(u32::from_be_bytes([0, b[0], b[1], b[2]]))
    }
    /// Big-endian 48-bit integer.
    pub fn u48(&mut self) -> Result<u64, Error> {
        let b = self.take(6)?;
        Ok(u64::from_be_bytes([
            0, 0, b[0], b[1], b[2], b[3], b[4], b[5],
        ]))
    }
    /// Vector with a one-byte length prefix.
    pub fn vec8(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u8()? as usize;
        self.take(n)
    }
    /// Vector with a two-byte length prefix.
    pub fn vec16(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u16()? as usize;
        self.take(n)
    }
    /// Vector with a three-byte length prefix.
    pub fn vec24(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u24()? as usize;
        self.take(n)
    }
    /// Fixed-size array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    /// Fail unless all bytes were consumed.
    pub fn finish(&self) -> Result<(), Error> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(Error::Decode(Malformed::TrailingBytes))
        }
    }
}

/// Append helpers on `Vec<u8>`.
pub trait Writer {
    /// Append a u16.
    fn put_u16(&mut self, v: u16);
    /// Append a 24-bit integer.
    fn put_u24(&mut self, v: u32);
    /// Append a 48-bit integer.
    fn put_u48(&mut self, v: u64);
    /// Append with a one-byte length prefix.
    fn put_vec8(&mut self, v: &[u8]);
    /// Append with a two-byte length prefix.
    fn put_vec16(&mut self, v: &[u8]);
    /// Append with a three-byte length prefix.
    fn put_vec24(&mut self, v: &[u8]);
}

impl Writer for Vec<u8> {
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_be_bytes());
    }
    fn put_u24(&mut self, v: u32) {
        self.extend_from_slice(&v.to_be_bytes()[1..]);
    }
    fn put_u48(&mut self, v: u64) {
        self.extend_from_slice(&v.to_be_bytes()[2..]);
    }
    fn put_vec8(&mut self, v: &[u8]) {
        debug_assert!(v.len() <= 0xff);
        self.push(v.len() as u8);
        self.extend_from_slice(v);
    }
    fn put_vec16(&mut self, v: &[u8]) {
        debug_assert!(v.len() <= 0xffff);
        self.put_u16(v.len() as u16);
        self.extend_from_slice(v);
    }
    fn put_vec24(&mut self, v: &[u8]) {
        debug_assert!(v.len() <= 0xff_ffff);
        self.put_u24(v.len() as u32);
        self.extend_from_slice(v);
    }
}

/// A read of `f` that ran out of bytes.
pub(crate) fn trunc(f: Field) -> impl Fn(Error) -> MessageError {
    move |_| MessageError::Truncated(f)
}

/// `f` must end where its reader ends.
pub(crate) fn finish(r: &Reader<'_>, f: Field) -> Result<(), MessageError> {
    if r.is_empty() {
        Ok(())
    } else {
        Err(MessageError::TrailingBytes(f))
    }
}

/// Data that is one non-empty vector `f` (read by `vector`: `Reader::vec8`
/// or `Reader::vec16`) and nothing after it.
pub(crate) fn non_empty_vector<'a>(
    data: &'a [u8],
    f: Field,
    vector: fn(&mut Reader<'a>) -> Result<&'a [u8], Error>,
) -> Result<Vec<u8>, MessageError> {
    let mut r = Reader::new(data);
    let v = vector(&mut r).map_err(trunc(f))?;
    finish(&r, f)?;
    if v.is_empty() {
        return Err(MessageError::BadLength(f));
    }
    Ok(v.to_vec())
}
