//! Fuzzing the REST API and the preview server function through the real server: mutated
//! training requests from proptest ([`properties`]), and every OpenAPI operation from schemathesis
//! ([`schemathesis`]). The rule both enforce: whatever a client sends, the answer is never a 5xx
//! (nor a dropped connection, which is what a panicking handler gives).

mod mutations;
mod properties;
mod schemathesis;
