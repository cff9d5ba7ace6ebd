//! Object types: fields (read-only and writable, with docs and defaults), inheritance, instance
//! and static methods, and constructors (`__ffi_init__`) with default arguments.

use ffihub::{
    Array, DataType, Device, Error, Map, Object, ObjectRef, Result, Shape, String, Writable,
};

/// A point in the plane (immutable).
#[derive(ffihub::Object)]
#[ffihub(type_key = "demo.Point")]
#[repr(C)]
pub struct Point {
    base: Object,
    /// The x coordinate.
    pub x: f64,
    /// The y coordinate.
    pub y: f64,
}

impl Point {
    /// A point value (place it on the heap with `ObjectRef::new`).
    pub fn value(x: f64, y: f64) -> Point {
        Point {
            base: Object::new(),
            x,
            y,
        }
    }
}

#[ffihub::methods]
impl Point {
    /// Creates the point `(x, y)`.
    #[ffihub(init)]
    pub fn new(x: f64, y: f64) -> Point {
        Point::value(x, y)
    }

    /// The distance from the origin.
    pub fn norm(&self) -> f64 {
        // As `Point3D::norm` (not `f64::hypot`, which guards against overflow at about three
        // times the cost: the benchmarks call this method to measure a method call).
        (self.x * self.x + self.y * self.y).sqrt()
    }

    /// A new point moved by `(dx, dy)`.
    pub fn translate(&self, dx: f64, dy: f64) -> Point {
        Point::value(self.x + dx, self.y + dy)
    }

    /// The distance to another point (any `demo.Point`, including a `demo.Point3D`, whose `z`
    /// is ignored).
    pub fn distance(&self, other: ObjectRef<Point>) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    /// The point `(0, 0)`.
    pub fn origin() -> Point {
        Point::value(0.0, 0.0)
    }
}

/// A point in space: a `demo.Point` with a `z` coordinate.
#[derive(ffihub::Object)]
#[ffihub(type_key = "demo.Point3D")]
#[repr(C)]
pub struct Point3D {
    base: Point,
    /// The z coordinate.
    pub z: f64,
}

#[ffihub::methods]
impl Point3D {
    /// Creates the point `(x, y, z)`; `z` defaults to 0.
    #[ffihub(init)]
    pub fn new(x: f64, y: f64, #[ffihub(default = 0.0)] z: f64) -> Point3D {
        Point3D {
            base: Point::value(x, y),
            z,
        }
    }

    /// The distance from the origin in space (overrides `demo.Point.norm`).
    pub fn norm(&self) -> f64 {
        (self.base.x * self.base.x + self.base.y * self.base.y + self.z * self.z).sqrt()
    }

    /// The projection on the plane, as a `demo.Point`.
    pub fn to_2d(&self) -> Point {
        Point::value(self.base.x, self.base.y)
    }
}

/// A counter with a label, a current count and a step; `count` and `step` are writable from
/// every language.
#[derive(ffihub::Object)]
#[ffihub(type_key = "demo.Counter")]
#[repr(C)]
pub struct Counter {
    base: Object,
    /// The label given at construction (read-only).
    pub label: String,
    /// The current count.
    #[ffihub(default = 0)]
    pub count: Writable<i64>,
    /// What `increment` adds.
    #[ffihub(default = 1)]
    pub step: Writable<i64>,
}

#[ffihub::methods]
impl Counter {
    /// Creates a counter `label` starting at `start` (default 0) that counts by `step`
    /// (default 1).
    #[ffihub(init)]
    pub fn new(
        label: String,
        #[ffihub(default = 0)] start: i64,
        #[ffihub(default = 1)] step: i64,
    ) -> Counter {
        Counter {
            base: Object::new(),
            label,
            count: Writable::new(start),
            step: Writable::new(step),
        }
    }

    /// Adds `step` to the count and returns the new count.
    pub fn increment(&self) -> i64 {
        let step = self.step.get();
        let mut count = self.count.write();
        *count += step;
        *count
    }

    /// Adds `n` to the count and returns the new count.
    pub fn add(&self, n: i64) -> i64 {
        let mut count = self.count.write();
        *count += n;
        *count
    }

    /// Sets the count back to 0.
    pub fn reset(&self) {
        self.count.set(0);
    }

    /// `"<label>: <count>"`.
    pub fn describe(&self) -> std::string::String {
        format!("{}: {}", self.label, self.count.get())
    }

    /// The counter as text, `"Counter(<label>: <count>)"`. Bindings map a method `to_string`
    /// to their language's own (JavaScript's `String(counter)`, Julia's `string(counter)`).
    #[allow(clippy::inherent_to_string)] // its registered name is the point
    pub fn to_string(&self) -> std::string::String {
        format!("Counter({}: {})", self.label, self.count.get())
    }

    /// A counter starting at 0 with step `step` (a static method).
    pub fn with_step(label: String, step: i64) -> Counter {
        Counter::new(label, 0, step)
    }
}

/// A named polygon: an array of `demo.Point` vertices, writable string tags and an optional
/// color.
#[derive(ffihub::Object)]
#[ffihub(type_key = "demo.Shape2D")]
#[repr(C)]
pub struct Shape2D {
    base: Object,
    /// The name of the shape.
    pub name: String,
    /// The vertices, in order.
    pub vertices: Array<ObjectRef<Point>>,
    /// Free-form tags (writable).
    pub tags: Writable<Map<String, String>>,
    /// The color, if any.
    #[ffihub(default = None)]
    pub color: Option<String>,
}

#[ffihub::methods]
impl Shape2D {
    /// Creates a shape from its name and vertices, with no tags; `color` defaults to `None`.
    #[ffihub(init)]
    pub fn new(
        name: String,
        vertices: Array<ObjectRef<Point>>,
        #[ffihub(default = None)] color: Option<String>,
    ) -> Result<Shape2D> {
        Ok(Shape2D {
            base: Object::new(),
            name,
            vertices,
            tags: Writable::new(Map::new(Vec::<(String, String)>::new())?),
            color,
        })
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> i64 {
        self.vertices.len() as i64
    }

    /// The enclosed area (shoelace formula; positive for counter-clockwise vertices).
    pub fn area(&self) -> Result<f64> {
        let points = self.vertices.to_vec()?;
        let n = points.len();
        let twice: f64 = (0..n)
            .map(|i| {
                let (a, b) = (&points[i], &points[(i + 1) % n]);
                a.x * b.y - b.x * a.y
            })
            .sum();
        Ok(twice / 2.0)
    }

    /// The perimeter (closed polygon).
    pub fn perimeter(&self) -> Result<f64> {
        let points = self.vertices.to_vec()?;
        let n = points.len();
        Ok((0..n)
            .map(|i| points[i].distance(points[(i + 1) % n].clone()))
            .sum())
    }

    /// The axis-aligned square with corners `(0, 0)` and `(side, side)` (a static method);
    /// `ValueError` if `side` is negative.
    pub fn square(side: f64) -> Result<Shape2D> {
        if side < 0.0 {
            return Err(Error::value_error(format!("side must be >= 0, got {side}")));
        }
        let corners = [(0.0, 0.0), (side, 0.0), (side, side), (0.0, side)]
            .into_iter()
            .map(|(x, y)| ObjectRef::new(Point::value(x, y)));
        Shape2D::new(String::from("square"), Array::new(corners)?, None)
    }
}

/// The description of a tensor: data type, device, shape and an optional label.
#[derive(ffihub::Object)]
#[ffihub(type_key = "demo.TensorSpec")]
#[repr(C)]
pub struct TensorSpec {
    base: Object,
    /// The element type.
    pub dtype: DataType,
    /// Where the data lives.
    pub device: Device,
    /// The extents.
    pub shape: Shape,
    /// A label, if any.
    pub label: Option<String>,
}

#[ffihub::methods]
impl TensorSpec {
    /// Creates a spec; `label` defaults to `None`.
    #[ffihub(init)]
    pub fn new(
        dtype: DataType,
        device: Device,
        shape: Shape,
        #[ffihub(default = None)] label: Option<String>,
    ) -> TensorSpec {
        TensorSpec {
            base: Object::new(),
            dtype,
            device,
            shape,
            label,
        }
    }

    /// The number of elements.
    pub fn numel(&self) -> Result<i64> {
        self.shape.numel()
    }

    /// The size of the data in bytes.
    pub fn nbytes(&self) -> Result<i64> {
        self.shape
            .numel()?
            .checked_mul(self.dtype.size_in_bytes() as i64)
            .ok_or_else(|| Error::value_error("the tensor's size in bytes overflows int64"))
    }
}
