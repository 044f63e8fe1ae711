//! `terrarium grants`: what a provider asks for, and the person's approval of it.

use std::path::PathBuf;

use anyhow::Context as _;

use terrarium_install::approvals::{Approvals, grants_file_of};

#[derive(Debug, clap::Args)]
pub struct GrantsArgs {
    #[command(subcommand)]
    pub action: GrantsAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum GrantsAction {
    /// Show what a provider package asks for and whether it is in force.
    Show {
        /// The provider's package directory (where `terraform init` put it) or its grants file.
        package: PathBuf,
    },
    /// Approve what a provider package asks for: it then runs with exactly those grants,
    /// until it asks for others.
    Approve {
        /// The provider's package directory (where `terraform init` put it) or its grants file.
        package: PathBuf,
    },
}

fn approvals() -> anyhow::Result<Approvals> {
    Approvals::for_user().context("neither XDG_CONFIG_HOME nor HOME is set: set HOME")
}

pub fn run(args: &GrantsArgs) -> anyhow::Result<()> {
    match &args.action {
        GrantsAction::Show { package } => {
            print!("{}", approvals()?.describe(&grants_file_of(package))?);
        }
        GrantsAction::Approve { package } => {
            let approvals = approvals()?;
            let file = grants_file_of(package);
            let granted = approvals.approve(&file)?;
            print!("{}", approvals.describe(&file)?);
            eprintln!(
                "Approved. The provider now runs with the grants in {} (narrow them there if you \
                 like). Nothing else needs to change: the package and Terraform's lock file are \
                 untouched.",
                granted.display()
            );
        }
    }
    Ok(())
}
