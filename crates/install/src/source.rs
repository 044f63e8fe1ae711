//! The provider source address and version a component is installed as, checked and
//! normalised by Terraform's rules.

use std::fmt;
use std::str::FromStr;

use super::InstallError;

/// Registry host assumed when `--source` is written as `NAMESPACE/TYPE`, as Terraform does.
pub const DEFAULT_REGISTRY_HOST: &str = "registry.terraform.io";

/// A provider source address, normalised the way Terraform does (lower case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSource {
    pub hostname: String,
    pub namespace: String,
    pub type_name: String,
}

impl FromStr for ProviderSource {
    type Err = InstallError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let invalid =
            |reason: String| InstallError::InvalidSource { given: given.to_owned(), reason };
        let parts: Vec<&str> = given.split('/').collect();
        let (hostname, namespace, type_name) = match parts.as_slice() {
            [namespace, type_name] => (DEFAULT_REGISTRY_HOST, *namespace, *type_name),
            [hostname, namespace, type_name] => (*hostname, *namespace, *type_name),
            _ => {
                return Err(invalid(format!("it has {} part(s) separated by '/'", parts.len())));
            }
        };
        check_hostname(hostname)
            .map_err(|reason| invalid(format!("hostname {hostname:?} {reason}")))?;
        check_name_part(namespace)
            .map_err(|reason| invalid(format!("namespace {namespace:?} {reason}")))?;
        check_name_part(type_name)
            .map_err(|reason| invalid(format!("type {type_name:?} {reason}")))?;
        if type_name.eq_ignore_ascii_case("terraform") {
            // terraform.io/builtin/terraform is built into Terraform; no mirror can replace it.
            return Err(invalid("the type name \"terraform\" is reserved by Terraform".to_owned()));
        }
        Ok(Self {
            hostname: hostname.to_ascii_lowercase(),
            namespace: namespace.to_ascii_lowercase(),
            type_name: type_name.to_ascii_lowercase(),
        })
    }
}

impl fmt::Display for ProviderSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.hostname, self.namespace, self.type_name)
    }
}

/// Terraform's rule for namespace and type: letters, digits and dashes, no leading or trailing
/// dash. Underscores would break the executable name, which Terraform splits on `_`.
fn check_name_part(part: &str) -> Result<(), String> {
    if part.is_empty() {
        return Err("is empty".to_owned());
    }
    if part.len() > 64 {
        return Err("is longer than 64 characters".to_owned());
    }
    if let Some(bad) = part.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-')) {
        return Err(format!("contains {bad:?}; use only letters, digits and dashes"));
    }
    if part.starts_with('-') || part.ends_with('-') {
        return Err("starts or ends with a dash".to_owned());
    }
    Ok(())
}

/// A DNS name (ASCII labels of letters, digits and dashes), optionally with `:PORT`.
fn check_hostname(hostname: &str) -> Result<(), String> {
    let (name, port) = match hostname.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (hostname, None),
    };
    if let Some(port) = port
        && port.parse::<u16>().map_or(true, |p| p == 0)
    {
        return Err(format!("has an invalid port {port:?}"));
    }
    if name.is_empty() {
        return Err("is empty".to_owned());
    }
    for label in name.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("is not a valid DNS name".to_owned());
        }
        if let Some(bad) = label.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-')) {
            return Err(format!("contains {bad:?}, which a DNS name cannot"));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err("has a label starting or ending with a dash".to_owned());
        }
    }
    Ok(())
}

/// A provider version in the canonical form Terraform writes in lock files and mirror paths:
/// `MAJOR.MINOR.PATCH[-PRERELEASE]`, no `v` prefix, no leading zeros, no build metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderVersion(String);

impl ProviderVersion {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProviderVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for ProviderVersion {
    type Err = InstallError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: &str| InstallError::InvalidVersion {
            given: given.to_owned(),
            reason: reason.to_owned(),
        };
        if given.starts_with(['v', 'V']) {
            return Err(invalid("drop the leading \"v\""));
        }
        if given.contains('+') {
            return Err(invalid("build metadata (\"+...\") is not allowed in provider versions"));
        }
        let (core, prerelease) = match given.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (given, None),
        };
        let numbers: Vec<&str> = core.split('.').collect();
        if numbers.len() != 3 {
            return Err(invalid("it needs exactly three numbers"));
        }
        for number in &numbers {
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
                return Err(invalid("MAJOR, MINOR and PATCH must be decimal numbers"));
            }
            if number.len() > 1 && number.starts_with('0') {
                return Err(invalid("numbers must not have leading zeros"));
            }
            if number.parse::<u64>().is_err() {
                return Err(invalid("a number is too large"));
            }
        }
        if let Some(prerelease) = prerelease {
            for identifier in prerelease.split('.') {
                if identifier.is_empty()
                    || !identifier.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                {
                    return Err(invalid(
                        "the pre-release part must be dot-separated letters, digits and dashes",
                    ));
                }
                if identifier.len() > 1
                    && identifier.starts_with('0')
                    && identifier.bytes().all(|b| b.is_ascii_digit())
                {
                    return Err(invalid(
                        "numeric pre-release identifiers must not have leading zeros",
                    ));
                }
            }
        }
        Ok(Self(given.to_owned()))
    }
}
