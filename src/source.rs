//! Transitional re-exports: texts and positions live in `crate::span`, the file
//! layer in `crate::files`.

pub use crate::files::*;
pub use crate::span::*;
