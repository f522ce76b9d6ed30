//! Feeds arbitrary bytes, in arbitrary chunks, through the NDJSON line
//! decoder and the request decoder: nothing may panic, the buffer stays
//! bounded, and every rejection carries a documented error code.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use oceansim_protocol::{ErrorCode, NdjsonCodec, Request};
use tokio_util::codec::Decoder;

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, rest)) = data.split_first() else { return };
    let chunk = usize::from(chunk).max(1);
    let mut codec = NdjsonCodec::with_max_line_bytes(128);
    let mut buf = BytesMut::new();
    let check = |item: oceansim_protocol::LineItem| match item {
        Ok(line) => {
            if let Err(rej) = Request::decode(&line) {
                assert!(ErrorCode::ALL.contains(&rej.error.code()));
            }
        }
        Err(e) => assert_eq!(e.code(), ErrorCode::InvalidMessage),
    };
    for piece in rest.chunks(chunk) {
        buf.extend_from_slice(piece);
        while let Some(item) = codec.decode(&mut buf).expect("decoder never fails") {
            check(item);
        }
        assert!(buf.len() <= 129);
    }
    while let Some(item) = codec.decode_eof(&mut buf).expect("decoder never fails") {
        check(item);
    }
});
