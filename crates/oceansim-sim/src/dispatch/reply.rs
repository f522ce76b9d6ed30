//! What a handler answers: a reply's type and its typed data, or a coded
//! error. The envelope around it is built once per request (`answer_one`)
//! and written by the protocol's one encoder.

use oceansim_protocol::{Data, ProtocolError, ResponseType};
use serde::Serialize;
use serde_json::value::RawValue;
use std::sync::Arc;

/// A successful answer: its type and its data.
#[derive(Debug)]
pub(crate) struct Reply {
    pub kind: ResponseType,
    pub data: Data,
}

impl Reply {
    /// A `response` carrying a typed reply, serialised where it is
    /// written.
    pub fn ok<T: Serialize + Send + 'static>(data: T) -> Outcome {
        Ok(Reply {
            kind: ResponseType::Response,
            data: Data::typed(data),
        })
    }

    /// A `state` response carrying a typed state (the compact state, the
    /// sensors' payloads), serialised where it is written.
    pub fn state<T: Serialize + Send + 'static>(data: T) -> Outcome {
        Ok(Reply {
            kind: ResponseType::State,
            data: Data::typed(data),
        })
    }

    /// The full state, rendered once per revision and shared by every
    /// reader of it: the one place a reply copies text rendered before it.
    pub fn rendered_state(state: Arc<RawValue>) -> Outcome {
        Ok(Reply {
            kind: ResponseType::State,
            data: Data::Rendered(state),
        })
    }
}

/// What a request comes to.
pub(crate) type Outcome = Result<Reply, ProtocolError>;
