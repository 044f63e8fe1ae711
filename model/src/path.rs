//! Attribute paths: where in a value a diagnostic or a replacement applies.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathStep {
    Attribute(String),
    Key(String),
    Index(i64),
}

/// A path into a value, root first. Displays the way Terraform writes it: `a.b[0]["k"]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttributePath(pub Vec<PathStep>);

impl AttributePath {
    pub fn root() -> Self {
        AttributePath(Vec::new())
    }

    pub fn attribute(name: impl Into<String>) -> Self {
        AttributePath(vec![PathStep::Attribute(name.into())])
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    #[must_use]
    pub fn join(&self, step: PathStep) -> Self {
        let mut steps = self.0.clone();
        steps.push(step);
        AttributePath(steps)
    }

    #[must_use]
    pub fn attr(&self, name: impl Into<String>) -> Self {
        self.join(PathStep::Attribute(name.into()))
    }

    #[must_use]
    pub fn key(&self, key: impl Into<String>) -> Self {
        self.join(PathStep::Key(key.into()))
    }

    #[must_use]
    pub fn index(&self, i: i64) -> Self {
        self.join(PathStep::Index(i))
    }
}

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(root)");
        }
        for (i, step) in self.0.iter().enumerate() {
            match step {
                PathStep::Attribute(a) if i == 0 => write!(f, "{a}")?,
                PathStep::Attribute(a) => write!(f, ".{a}")?,
                PathStep::Key(k) => write!(f, "[{k:?}]")?,
                PathStep::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_like_terraform() {
        let p = AttributePath::attribute("a").attr("b").index(0).key("k");
        assert_eq!(p.to_string(), r#"a.b[0]["k"]"#);
        assert_eq!(AttributePath::root().to_string(), "(root)");
    }
}
