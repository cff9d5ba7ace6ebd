//! (being written)

use super::Globals;

pub(super) fn register(_globals: &mut Globals) {}
