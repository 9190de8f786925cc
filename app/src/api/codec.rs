//! The answers of server functions, and their errors, as JSON read from text.
//!
//! server_fn's own `Json` decodes answers with `serde_json::from_slice`, while island props and
//! the live events are decoded with `serde_json::from_str`. Each reader compiles every type's
//! `Deserialize` again, so a type that reaches the browser both ways (a workload page: the
//! list's props and its refetch) was in the WebAssembly twice. Decoding the text with `from_str`
//! here leaves one copy. The bytes on the wire are the same JSON.

use leptos::server_fn::codec::Post;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::Serialize;
use serde::de::{DeserializeOwned, Error as _};

/// JSON encoded as server_fn's `JsonEncoding` encodes it, decoded from UTF-8 text.
pub struct JsonText;

/// A server function's answer in a `POST`'s response, as [`JsonText`].
pub type JsonAnswer = Post<JsonText>;

impl ContentType for JsonText {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for JsonText {
    const FORMAT_TYPE: Format = Format::Text;
}

impl<T: Serialize> Encodes<T> for JsonText {
    type Error = serde_json::Error;

    fn encode(output: &T) -> Result<Bytes, serde_json::Error> {
        serde_json::to_vec(output).map(Bytes::from)
    }
}

impl<T: DeserializeOwned> Decodes<T> for JsonText {
    type Error = serde_json::Error;

    fn decode(bytes: Bytes) -> Result<T, serde_json::Error> {
        let text = std::str::from_utf8(&bytes).map_err(serde_json::Error::custom)?;
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_encoded_decodes_and_bad_text_is_an_error() {
        let encoded = JsonText::encode(&vec!["a".to_owned(), "é".to_owned()]).unwrap();
        let decoded: Vec<String> = JsonText::decode(encoded).unwrap();
        assert_eq!(decoded, ["a", "é"]);
        assert!(
            <JsonText as Decodes<Vec<String>>>::decode(Bytes::from_static(b"[\"\xff\"]")).is_err()
        );
    }
}
