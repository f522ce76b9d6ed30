//! What a handler answers: a reply's type and its data (typed, or a state
//! reply made of rendered text), or a coded error. The envelope around it is
//! built once per request (`answer_one`) and written by the protocol's one
//! encoder.

use oceansim_protocol::{Data, ProtocolError, Rendered, ResponseType};
use serde::Serialize;

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

    /// A `state` response made of rendered text (the cached full state,
    /// or a typed state with the sensors' rendered payloads).
    pub fn state(data: impl Into<Rendered>) -> Outcome {
        Ok(Reply {
            kind: ResponseType::State,
            data: Data::Rendered(data.into()),
        })
    }
}

/// What a request comes to.
pub(crate) type Outcome = Result<Reply, ProtocolError>;
