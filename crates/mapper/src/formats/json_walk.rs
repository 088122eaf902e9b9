//! Walks JSON that a library wrote, for the few changes the library has no setting for.

use serde_json::{Map, Value};

/// Calls `change` on every object in `json`, at any depth. It walks with a stack of its own, not
/// by recursion, so no nesting can overflow the call stack.
pub(crate) fn each_object(json: &mut Value, mut change: impl FnMut(&mut Map<String, Value>)) {
    let mut pending = vec![json];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(object) => {
                change(object);
                pending.extend(object.values_mut());
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            _ => {}
        }
    }
}
