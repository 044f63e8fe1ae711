//! `terrarium registry serve DIR`: a Terraform provider registry and provider network mirror
//! over HTTPS, serving the releases `terrarium package` writes into DIR.
//!
//! * [`protocol`]: the two protocols, as functions from a request path to a reply.
//! * [`catalog`]: what DIR holds, read per request.
//! * [`tls`]: the certificate: the author's, or a local CA's `localhost` certificate.
//! * [`server`]: HTTPS (rustls + hyper).

// Doc comments on the clap arguments are `--help` text, where brackets mean optional parts.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod catalog;
pub mod protocol;
pub mod server;
pub mod tls;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;

/// Arguments of `terrarium registry`.
#[derive(clap::Args, Debug, Clone)]
pub struct RegistryArgs {
    #[command(subcommand)]
    pub command: RegistryCommand,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum RegistryCommand {
    /// Serve the releases in DIR over HTTPS by Terraform's provider registry protocol and
    /// provider network mirror protocol.
    Serve(ServeArgs),
}

/// Arguments of `terrarium registry serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The directory `terrarium package --out` wrote (HOST/NAMESPACE/TYPE/ inside).
    pub dir: PathBuf,

    /// Address to listen on; port 0 picks a free one.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8443")]
    pub listen: SocketAddr,

    /// Server certificate chain, PEM [default: a `localhost` certificate from Terrarium's
    /// local CA, $XDG_DATA_HOME/terrarium/registry-ca/ca.pem, made on first use].
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The certificate's private key, PEM.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

/// `terrarium registry ...`.
pub fn run(args: &RegistryArgs) -> anyhow::Result<()> {
    match &args.command {
        RegistryCommand::Serve(serve) => run_serve(serve),
    }
}

/// Serves until interrupted. Prints on stdout, one per line: the registry's URL, the network
/// mirror's URL and, with the local CA, `SSL_CERT_FILE=PATH`.
fn run_serve(args: &ServeArgs) -> anyhow::Result<()> {
    if !args.dir.is_dir() {
        anyhow::bail!(
            "{} is not a directory; package a provider into it first with `terrarium package \
             COMPONENT --source HOST/NAMESPACE/TYPE --version X.Y.Z --out {}`",
            args.dir.display(),
            args.dir.display()
        );
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => tls::from_files(cert, key)?,
        _ => tls::local_ca(&tls::default_ca_dir()?)?,
    };
    let catalog = Arc::new(catalog::Catalog::new(args.dir.clone()));
    let runtime = terrarium_install::tokio_runtime()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("cannot listen on {}; pass another --listen ADDR", args.listen))?;
        let address = listener.local_addr()?;
        let ip = address.ip();
        let host = if ip.is_loopback() || ip.is_unspecified() {
            format!("localhost:{}", address.port())
        } else {
            address.to_string()
        };
        let mut out = std::io::stdout().lock();
        writeln!(out, "Registry: https://{host}/ (source addresses {host}/NAMESPACE/TYPE)")?;
        writeln!(out, "Network mirror: https://{host}{}", protocol::MIRROR_V1)?;
        if let Some(ca) = &tls.ca_file {
            writeln!(out, "SSL_CERT_FILE={}", ca.display())?;
        }
        out.flush()?;
        drop(out);
        if let Some(ca) = &tls.ca_file {
            eprintln!(
                "Its certificate comes from Terrarium's local CA: run terraform with \
                 SSL_CERT_FILE={} (Terraform then trusts only that file; add it to a copy of \
                 your system's CA bundle to reach other HTTPS registries too).",
                ca.display()
            );
        }
        for provider in catalog.providers() {
            let versions: Vec<String> = provider.versions().into_keys().collect();
            eprintln!(
                "Serving {}/{}/{} {}",
                provider.host,
                provider.namespace,
                provider.type_name,
                versions.join(", ")
            );
        }
        tokio::select! {
            result = server::serve(listener, tls.config, catalog) => result.context("the registry stopped"),
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}
