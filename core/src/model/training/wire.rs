//! How the request's parts are declared, once: every part reads and writes camelCase JSON, leaves
//! absent fields out, and is described in the OpenAPI document. The macros only add those
//! attributes, so a part reads as the plain struct or enum it is.

/// A struct of the request: camelCase keys, `None` fields left out, an OpenAPI schema.
macro_rules! request_part {
    ($(#[$meta:meta])* pub struct $name:ident $body:tt) => {
        #[serde_with::skip_serializing_none]
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(rename_all = "camelCase")]
        $(#[$meta])*
        pub struct $name $body
    };
}

/// An enum of the request whose values are spelled as its variants, with `as_str` giving that
/// spelling (for the Kubernetes field it becomes).
macro_rules! request_choice {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[doc = $doc:literal])* $variant:ident),+ $(,)? }) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        $(#[$meta])*
        pub enum $name {
            $($(#[doc = $doc])* $variant),+
        }

        impl $name {
            /// The value as the request and Kubernetes spell it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant)),+
                }
            }
        }
    };
}
