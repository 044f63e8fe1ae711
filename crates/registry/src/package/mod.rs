//! `terrarium package`: a provider component as the release a Terraform provider registry
//! serves, for one or more platforms, signed, plus Terraform's packed filesystem-mirror layout
//! (the same directory). See [`release`] for the files and docs/distribution.md for the path
//! from a component to `terraform init`.
//!
//! * [`release`]: the release's file names and layout, and writing them.
//! * [`archive`]: reproducible zips.
//! * [`hashes`]: the `zh:` and `h1:` hashes of Terraform's lock file.
//! * [`signing`]: the OpenPGP key and the detached signature of `SHA256SUMS`.
//! * [`executable`]: checking that a host executable fits the platform it is packaged for.
//! * [`pulumi`]: with `--pulumi NAME`, the plugin archives Pulumi installs instead.

// Doc comments on the clap arguments are `--help` text, where brackets mean optional parts.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod archive;
pub mod executable;
pub mod hashes;
pub mod pulumi;
pub mod release;
pub mod signing;

use std::path::{Path, PathBuf};

use release::{PlatformHost, ReleaseRequest};
use signing::SigningKey;
use terrarium_install::{Platform, ProviderSource, ProviderVersion};

/// Arguments of `terrarium package`.
#[derive(clap::Args, Debug, Clone)]
pub struct PackageArgs {
    /// The provider component to package: a WebAssembly component (.wasm).
    pub component: PathBuf,

    /// Provider source address, [HOST/]NAMESPACE/TYPE, as configurations will write it in
    /// `required_providers` (HOST defaults to registry.terraform.io).
    #[arg(long, value_name = "[HOST/]NAMESPACE/TYPE", required_unless_present = "pulumi")]
    pub source: Option<String>,

    /// Package for Pulumi instead: write `pulumi-resource-NAME-vVERSION-OS-ARCH.tar.gz` per
    /// platform into --out, for `pulumi plugin install resource NAME VERSION --file ARCHIVE`.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["source", "signing_key"])]
    pub pulumi: Option<String>,

    /// The version to release, a semantic version such as 1.2.3.
    #[arg(long, value_name = "X.Y.Z")]
    pub version: String,

    /// Directory to write the release into, under HOST/NAMESPACE/TYPE/ (created if missing;
    /// other versions and providers already there are kept).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// OpenPGP secret key that signs SHA256SUMS (armored or binary; passphrase in
    /// TERRARIUM_SIGNING_KEY_PASSPHRASE) [default: Terrarium's own key for this user,
    /// $XDG_CONFIG_HOME/terrarium/signing-key.asc, made on first use].
    #[arg(long, value_name = "FILE")]
    pub signing_key: Option<PathBuf>,

    /// A platform to package, OS_ARCH, with the served-only executable built for it:
    /// OS_ARCH=PATH, or OS_ARCH alone for this machine's platform (the terrarium-provider beside
    /// this terrarium) and for those a Terrarium release ships (hosts/OS_ARCH/terrarium-provider
    /// beside this terrarium).
    /// Repeatable [default: this machine's platform and every platform the release ships].
    #[arg(long = "platform", value_name = "OS_ARCH[=PATH]", value_parser = parse_platform_arg)]
    pub platforms: Vec<PlatformArg>,

    /// Replace an already packaged, different release of the same version.
    #[arg(long)]
    pub force: bool,

    /// What the provider may do by default: the grants file inside every zip.
    #[command(flatten)]
    pub grant_flags: terrarium_install::grant_args::GrantArgs,
}

/// `--platform OS_ARCH[=PATH]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformArg {
    pub platform: Platform,
    pub executable: Option<PathBuf>,
}

fn parse_platform_arg(text: &str) -> Result<PlatformArg, String> {
    let (platform, executable) = match text.split_once('=') {
        Some((platform, path)) if !path.is_empty() => (platform, Some(PathBuf::from(path))),
        Some(_) => return Err("the path after '=' is empty".to_owned()),
        None => (text, None),
    };
    let platform = Platform::parse(platform).map_err(|e| e.to_string())?;
    Ok(PlatformArg { platform, executable })
}

/// Why `terrarium package` refused its input.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error(
        "no terrarium-provider executable for {platform}: a Terrarium release ships it as {}; \
         or pass --platform {platform}=PATH with a terrarium-provider built for it (e.g. `cargo \
         build --release --target TRIPLE -p terrarium --no-default-features --bin \
         terrarium-provider`; docs/distribution.md says which TRIPLE)",
        shipped.display()
    )]
    NoExecutable { platform: Platform, shipped: PathBuf },

    #[error("--platform {platform} is given twice; give each platform once")]
    DuplicatePlatform { platform: Platform },

    #[error("cannot read the executable {}: {cause}", path.display())]
    ReadExecutable { path: PathBuf, cause: std::io::Error },

    #[error(
        "{} is not a {platform} executable ({found}); pass the terrarium-provider built for \
         {platform}",
        path.display()
    )]
    WrongExecutable { path: PathBuf, platform: Platform, found: String },
}

/// `terrarium package`: validates, writes the release, prints the lock-file block on stdout
/// (the hashes `terraform providers lock` will record) and a summary on stderr.
pub fn run(args: &PackageArgs) -> anyhow::Result<()> {
    if let Some(name) = &args.pulumi {
        return run_pulumi(args, name);
    }
    let source: ProviderSource = args.source.as_deref().unwrap_or_default().parse()?;
    let version: ProviderVersion = args.version.parse()?;
    let grants = args.grant_flags.grants()?;
    let hosts = platform_hosts(&args.platforms)?;
    terrarium_install::check_component(&args.component)?;
    terrarium_install::validate_component(&args.component)?;
    let signing_key = match &args.signing_key {
        Some(path) => SigningKey::load(path)?,
        None => SigningKey::load_or_generate_default()?,
    };
    let release = release::write_release(&ReleaseRequest {
        component: &args.component,
        source: &source,
        version: &version,
        out: &args.out,
        hosts: &hosts,
        grants: &grants,
        signing_key: &signing_key,
        force: args.force,
    })?;

    let verb = if release.written { "Packaged" } else { "Already packaged (unchanged)" };
    eprintln!("{verb}: {source} {version}\n  in {}", release.dir.display());
    for platform in &release.platforms {
        eprintln!("  {}  {}", platform.platform, platform.h1);
    }
    if release.written {
        eprintln!("  SHA256SUMS signed with key ID {}", release.key_id);
    }
    eprintln!(
        "\nServe it with `terrarium registry serve {}`, or use the directory as a \
         filesystem_mirror. A lock file that has every packaged platform holds:\n",
        args.out.display()
    );
    print!("{}", release.lock_block(&source, &version));
    Ok(())
}

/// `terrarium package --pulumi NAME`: the same checks, Pulumi's plugin archives.
fn run_pulumi(args: &PackageArgs, name: &str) -> anyhow::Result<()> {
    terrarium_install::pulumi::check_package_name(name)?;
    let version: ProviderVersion = args.version.parse()?;
    let grants = args.grant_flags.grants()?;
    let hosts = platform_hosts(&args.platforms)?;
    terrarium_install::check_component(&args.component)?;
    terrarium_install::validate_component(&args.component)?;
    let archives = pulumi::write_plugin_archives(
        &args.component,
        name,
        &version,
        &hosts,
        &grants,
        &args.out,
        args.force,
    )?;
    eprintln!("Packaged for Pulumi: {name} {version}");
    for archive in &archives {
        eprintln!("  {}", archive.display());
    }
    if let Some(first) = archives.first() {
        eprintln!(
            "\nInstall it with `pulumi plugin install resource {name} {version} --file {}`",
            first.display()
        );
    }
    Ok(())
}

/// The executable for each platform: given, or the served-only one beside the running terrarium
/// for this machine's platform, or the one its release ships for another platform; with no
/// `--platform`, this machine's and every one the release ships. Each is checked to be built
/// for its platform.
fn platform_hosts(args: &[PlatformArg]) -> anyhow::Result<Vec<PlatformHost>> {
    platform_hosts_in(args, Platform::current()?, &terrarium_install::running_dir()?)
}

/// [`platform_hosts`] for a terrarium in `dir` running on `current`.
fn platform_hosts_in(
    args: &[PlatformArg],
    current: Platform,
    dir: &Path,
) -> anyhow::Result<Vec<PlatformHost>> {
    let wanted = if args.is_empty() {
        let shipped = terrarium_install::shipped_hosts(dir).into_iter();
        std::iter::once(PlatformArg { platform: current, executable: None })
            .chain(
                shipped
                    .filter(|(platform, _)| *platform != current)
                    .map(|(platform, path)| PlatformArg { platform, executable: Some(path) }),
            )
            .collect()
    } else {
        args.to_vec()
    };
    for (i, arg) in wanted.iter().enumerate() {
        if wanted[..i].iter().any(|earlier| earlier.platform == arg.platform) {
            return Err(PackageError::DuplicatePlatform { platform: arg.platform }.into());
        }
    }
    let mut hosts: Vec<PlatformHost> = Vec::new();
    for arg in wanted {
        let executable = match arg.executable {
            Some(path) => path,
            None if arg.platform == current => terrarium_install::served_executable_in(dir)?,
            None => {
                let shipped = terrarium_install::shipped_host_path(dir, arg.platform);
                if !shipped.is_file() {
                    return Err(
                        PackageError::NoExecutable { platform: arg.platform, shipped }.into()
                    );
                }
                shipped
            }
        };
        let kind = executable::executable_kind(&executable)
            .map_err(|cause| PackageError::ReadExecutable { path: executable.clone(), cause })?;
        if !kind.is_some_and(|kind| kind.runs_on(arg.platform)) {
            let found = match kind {
                Some(kind) => {
                    format!("it is {} for {}", kind.format, kind.arch.unwrap_or("another CPU"))
                }
                None => "it is no executable Terraform could start".to_owned(),
            };
            return Err(PackageError::WrongExecutable {
                path: executable,
                platform: arg.platform,
                found,
            }
            .into());
        }
        hosts.push(PlatformHost { platform: arg.platform, executable });
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_args_take_an_optional_executable() {
        assert_eq!(
            parse_platform_arg("linux_arm64=/x/terrarium").unwrap(),
            PlatformArg {
                platform: Platform { os: "linux", arch: "arm64" },
                executable: Some("/x/terrarium".into())
            }
        );
        assert_eq!(parse_platform_arg("linux_amd64").unwrap().executable, None);
        assert!(parse_platform_arg("linux_arm64=").is_err());
        assert!(parse_platform_arg("linux-arm64").unwrap_err().contains("OS_ARCH"));
    }

    #[test]
    fn another_platform_needs_its_executable_and_it_must_fit() {
        let other = if Platform::current().unwrap().arch == "arm64" { "amd64" } else { "arm64" };
        let other = Platform { os: "linux", arch: other };
        let err = platform_hosts(&[PlatformArg { platform: other, executable: None }])
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("--platform {other}=PATH")), "{err}");

        let this_exe = std::env::current_exe().unwrap();
        let err = platform_hosts(&[PlatformArg { platform: other, executable: Some(this_exe) }])
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("is not a {other} executable")), "{err}");

        let current = Platform::current().unwrap();
        let twice = [
            PlatformArg { platform: current, executable: None },
            PlatformArg { platform: current, executable: None },
        ];
        assert!(platform_hosts(&twice).unwrap_err().to_string().contains("given twice"));
    }

    /// This machine's platform, and another Linux one with its ELF machine number.
    fn this_and_another() -> (Platform, Platform, u16) {
        let current = Platform::current().unwrap();
        let (arch, machine) =
            if current.arch == "arm64" { ("amd64", 0x3e) } else { ("arm64", 0xb7) };
        (current, Platform { os: "linux", arch }, machine)
    }

    /// A Terrarium release as `terrarium package` finds it beside itself: `terrarium-provider`
    /// for this machine (this test binary), `hosts/linux_OTHER/terrarium-provider` for another
    /// platform (an ELF header is all the check reads).
    fn release_dir(with_other: bool) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(std::env::current_exe().unwrap(), dir.path().join("terrarium-provider"))
            .unwrap();
        if with_other {
            let (_, other, machine) = this_and_another();
            let hosts = dir.path().join("hosts").join(other.to_string());
            std::fs::create_dir_all(&hosts).unwrap();
            let mut header = b"\x7fELF\x02\x01\x01".to_vec();
            header.resize(18, 0);
            header.extend(machine.to_le_bytes());
            header.resize(64, 0);
            std::fs::write(hosts.join("terrarium-provider"), header).unwrap();
            // Not a platform: left alone.
            std::fs::create_dir_all(dir.path().join("hosts/notes")).unwrap();
        }
        dir
    }

    #[test]
    fn without_platforms_every_platform_the_release_ships_is_packaged() {
        let (current, other, _) = this_and_another();
        let release = release_dir(true);
        let hosts = platform_hosts_in(&[], current, release.path()).unwrap();
        let platforms: Vec<Platform> = hosts.iter().map(|h| h.platform).collect();
        assert_eq!(platforms, [current, other]);
        let shipped = release.path().join(format!("hosts/{other}/terrarium-provider"));
        assert_eq!(hosts[1].executable, shipped);
        // Named alone, the shipped one is used too.
        let named = [PlatformArg { platform: other, executable: None }];
        let hosts = platform_hosts_in(&named, current, release.path()).unwrap();
        assert_eq!(hosts.len(), 1);
        assert_eq!(hosts[0].executable, shipped);
    }

    #[test]
    fn a_platform_the_release_does_not_ship_says_where_it_looked() {
        let (current, other, _) = this_and_another();
        let release = release_dir(false);
        let hosts = platform_hosts_in(&[], current, release.path()).unwrap();
        assert_eq!(hosts.len(), 1, "only this machine's platform");
        let named = [PlatformArg { platform: other, executable: None }];
        let err = platform_hosts_in(&named, current, release.path()).unwrap_err().to_string();
        let shipped = release.path().join(format!("hosts/{other}/terrarium-provider"));
        assert!(err.contains(&format!("ships it as {}", shipped.display())), "{err}");
        assert!(err.contains(&format!("--platform {other}=PATH")), "{err}");
    }
}
