//! Arrays, maps, shapes and nested containers.

use ffihub::{Any, Array, Error, Map, Result, Shape, String};

/// The sum of an array of floats (integers are accepted).
#[ffihub::function(name = "demo.sum_array")]
pub fn sum_array(values: Array<f64>) -> Result<f64> {
    values.iter().sum()
}

/// The integers `0, 1, ..., n - 1`; `ValueError` if `n` is negative.
#[ffihub::function(name = "demo.make_range")]
pub fn make_range(n: i64) -> Result<Array<i64>> {
    if n < 0 {
        return Err(Error::value_error(format!("n must be >= 0, got {n}")));
    }
    Array::new(0..n)
}

/// The elements in reverse order (any element types).
#[ffihub::function(name = "demo.reverse_array")]
pub fn reverse_array(values: Array<Any>) -> Result<Array<Any>> {
    let mut items = values.to_vec()?;
    items.reverse();
    Array::new(items)
}

/// Element `index` of an array; negative indices count from the end. `IndexError` when out of
/// range.
#[ffihub::function(name = "demo.array_get")]
pub fn array_get(values: Array<Any>, index: i64) -> Result<Any> {
    let len = values.len() as i64;
    let position = if index < 0 { index + len } else { index };
    if position < 0 || position >= len {
        return Err(Error::index_error(format!(
            "index {index} is out of range for an array of length {len}"
        )));
    }
    values.get(position as usize)
}

/// A map from each word to its length in bytes.
#[ffihub::function(name = "demo.word_lengths")]
pub fn word_lengths(words: Array<String>) -> Result<Map<String, i64>> {
    let entries = words
        .iter()
        .map(|word| word.map(|w| (w.clone(), w.len() as i64)))
        .collect::<Result<Vec<_>>>()?;
    Map::new(entries)
}

/// The value of `key`; `KeyError` when the key is missing.
#[ffihub::function(name = "demo.map_get")]
pub fn map_get(map: Map<String, i64>, key: String) -> Result<i64> {
    map.get(key.clone())?
        .ok_or_else(|| Error::key_error(format!("key `{key}` is not in the map")))
}

/// The keys of a map, sorted.
#[ffihub::function(name = "demo.map_keys")]
pub fn map_keys(map: Map<String, Any>) -> Result<Array<String>> {
    let mut keys: Vec<String> = map.entries()?.into_iter().map(|(k, _)| k).collect();
    keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    Array::new(keys)
}

/// A nested structure: `n` maps, map `i` being `{"index": [i], "range": [0, ..., i - 1]}`.
#[ffihub::function(name = "demo.make_nested")]
pub fn make_nested(n: i64) -> Result<Array<Map<String, Array<i64>>>> {
    let maps = (0..n.max(0))
        .map(|i| {
            Map::new([
                (String::from("index"), Array::new([i])?),
                (String::from("range"), Array::new(0..i)?),
            ])
        })
        .collect::<Result<Vec<_>>>()?;
    Array::new(maps)
}

/// Summarizes an array of maps of string to integer arrays: `{"maps": number of maps, "keys":
/// number of keys over all maps, "values": number of integers, "total": their sum}`.
#[ffihub::function(name = "demo.nested_summary")]
pub fn nested_summary(data: Array<Map<String, Array<i64>>>) -> Result<Map<String, i64>> {
    let (mut keys, mut values, mut total) = (0, 0, 0);
    for map in data.iter() {
        for (_, array) in map?.entries()? {
            keys += 1;
            for value in array.iter() {
                values += 1;
                total += value?;
            }
        }
    }
    Map::new([
        (String::from("maps"), data.len() as i64),
        (String::from("keys"), keys),
        (String::from("values"), values),
        (String::from("total"), total),
    ])
}

/// Returns a shape unchanged.
#[ffihub::function(name = "demo.echo_shape")]
pub fn echo_shape(shape: Shape) -> Shape {
    shape
}

/// A shape from an array of extents.
#[ffihub::function(name = "demo.make_shape")]
pub fn make_shape(dims: Array<i64>) -> Result<Shape> {
    Shape::new(&dims.to_vec()?)
}

/// The number of elements of a shape (the product of its extents).
#[ffihub::function(name = "demo.shape_numel")]
pub fn shape_numel(shape: Shape) -> Result<i64> {
    shape.numel()
}
