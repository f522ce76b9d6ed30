//! What a handler answers: a reply's type and its data as JSON text, or a
//! coded error.

use oceansim_protocol::{ProtocolError, ResponseType};
use serde::Serialize;
use std::sync::Arc;

/// A successful answer: its type and its data as JSON text.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub kind: ResponseType,
    pub data: Arc<str>,
}

impl Reply {
    /// A `response` carrying a typed reply.
    pub fn ok<T: Serialize + ?Sized>(data: &T) -> Outcome {
        // Reply types are plain data; serialising them cannot fail.
        let text = serde_json::to_string(data).unwrap_or_else(|_| "{}".into());
        Ok(Reply {
            kind: ResponseType::Response,
            data: text.into(),
        })
    }

    /// A `state` response from rendered text.
    pub fn state(data: impl Into<Arc<str>>) -> Outcome {
        Ok(Reply {
            kind: ResponseType::State,
            data: data.into(),
        })
    }
}

/// What a request comes to.
pub(crate) type Outcome = Result<Reply, ProtocolError>;
