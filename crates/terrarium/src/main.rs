//! The `terrarium` executable. Installed as `terraform-provider-<type>_v<version>`, Terraform
//! starts it with no arguments and it serves the component found beside it.

fn main() -> std::process::ExitCode {
    match terrarium::main() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("terrarium: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
