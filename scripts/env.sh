# Sourced by the other scripts: where Tephra's build tools live, and PATH set to find them first.
# Tools are installed outside the checkout so fresh clones (and CI) reuse them.

TEPHRA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEPHRA_CACHE="${TEPHRA_CACHE:-$HOME/.cache/tephra}"
export TEPHRA_ROOT TEPHRA_CACHE
export PATH="$TEPHRA_CACHE/node/node_modules/.bin:$TEPHRA_CACHE/tools/bin:$HOME/.cargo/bin:$PATH"

# The versions that build on this toolchain (see ../shared/design/TOOLCHAIN.md).
CARGO_LEPTOS_VERSION=0.3.10
BINARYEN_VERSION=132
# axe-core checks each page's accessibility in the browser tests.
AXE_CORE_VERSION=4.11.0
export TEPHRA_AXE="$TEPHRA_CACHE/node/node_modules/axe-core/axe.min.js"
# oidc-provider is the real OpenID provider the sign-in tests run (tests/oidc); 9.x refuses Node 20.
OIDC_PROVIDER_VERSION=8.8.1
# Where npm packages for the tests live; tests/support/oidc.rs runs node with NODE_PATH set to it.
export TEPHRA_NODE_MODULES="$TEPHRA_CACHE/node/node_modules"
# schemathesis fuzzes the API from its OpenAPI document (tests/fuzz); 4.x runs on Python 3.9+.
SCHEMATHESIS_VERSION=4.32.5
# Run:ai's own Python SDK, the client of the compatibility tests.
RUNAPY_VERSION=1.224.0
export TEPHRA_RUNAPY_VENV="$TEPHRA_CACHE/venv-runapy"
export TEPHRA_VENV="$TEPHRA_CACHE/venv"
# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$TEPHRA_ROOT/Cargo.lock")"

step() { printf '\n==> %s\n' "$*" >&2; }

# The release build: the server binary and the site. `--split` because the islands only some pages
# use (the form, a training's detail, the overview, applications) are `#[island(lazy)]`: each is
# its own WebAssembly chunk that only the page showing it downloads. Every build of the site needs
# it (a lazy island does not link without the splitter).
# The front end and the server are built one after the other: built together, cargo-leptos 0.3.10
# once exited 0 with the server done and the front end's wasm-opt and minify steps cut short.
# The server is built once, static (musl): the binary the tests run is the one the container image
# ships (scripts/image), and CI does not build a second release server.
RELEASE_TRIPLE=x86_64-unknown-linux-musl
build_release() {
  cargo leptos build --release --split --frontend-only "$@"
  build_release_server "$@"
}
# Through cargo-leptos, not plain cargo: it sets LEPTOS_OUTPUT_NAME and the other compile-time
# variables the server reads (without them the pages ask for `tephra_bg.wasm`, which the site does
# not have).
build_release_server() {
  LEPTOS_BIN_TARGET_TRIPLE="$RELEASE_TRIPLE" cargo leptos build --release --split --server-only "$@"
}
# Where build_release puts the server.
release_bin() {
  local target_dir="${CARGO_TARGET_DIR:-$TEPHRA_ROOT/target}"
  [[ "$target_dir" = /* ]] || target_dir="$TEPHRA_ROOT/$target_dir"
  echo "$target_dir/$RELEASE_TRIPLE/release/tephra"
}
