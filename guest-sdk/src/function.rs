//! Provider functions (`provider::<name>::<function>(...)` in Terraform 1.8+).
//!
//! ```
//! use terrarium_sdk::function::{Arguments, Function, FunctionError, Parameter, Signature};
//! use terrarium_sdk::Type;
//!
//! struct Upper;
//!
//! impl Function for Upper {
//!     const NAME: &'static str = "upper";
//!     type Output = String;
//!
//!     fn signature(&self) -> Signature {
//!         Signature::new(Type::String)
//!             .summary("Upper-cases a string")
//!             .parameter(Parameter::new("text", Type::String))
//!     }
//!
//!     fn call(&self, args: &Arguments) -> Result<String, FunctionError> {
//!         let text: String = args.get(0)?;
//!         Ok(text.to_uppercase())
//!     }
//! }
//! ```

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use terrarium_model::schema::{self as model, Description};
use terrarium_model::{Type, Value};

use crate::value::{conform, from_value, to_value};

/// A function's parameters, return type and documentation.
#[derive(Clone, Debug)]
pub struct Signature {
    parameters: Vec<Parameter>,
    variadic: Option<Parameter>,
    return_type: Type,
    summary: String,
    description: Description,
    deprecation_message: String,
}

impl Signature {
    /// A function returning `return_type`, with no parameters yet.
    pub fn new(return_type: Type) -> Self {
        Signature {
            parameters: Vec::new(),
            variadic: None,
            return_type,
            summary: String::new(),
            description: Description::default(),
            deprecation_message: String::new(),
        }
    }

    /// Adds the next positional parameter.
    pub fn parameter(mut self, parameter: Parameter) -> Self {
        self.parameters.push(parameter);
        self
    }

    /// Any number of further arguments of one type, after the positional ones.
    pub fn variadic(mut self, parameter: Parameter) -> Self {
        self.variadic = Some(parameter);
        self
    }

    /// A one-line summary Terraform shows.
    pub fn summary(mut self, text: impl Into<String>) -> Self {
        self.summary = text.into();
        self
    }

    /// A longer description, plain text.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Description::plain(text);
        self
    }

    /// A longer description, in Markdown.
    pub fn markdown_description(mut self, text: impl Into<String>) -> Self {
        self.description = Description::markdown(text);
        self
    }

    /// Marks the function deprecated; Terraform warns with `message` when it is called.
    pub fn deprecated(mut self, message: impl Into<String>) -> Self {
        self.deprecation_message = message.into();
        self
    }

    /// What the function returns.
    pub fn return_type(&self) -> &Type {
        &self.return_type
    }

    /// What Terraform sees.
    pub fn to_model(&self) -> model::Function {
        model::Function {
            parameters: self.parameters.iter().map(Parameter::to_model).collect(),
            variadic: self.variadic.as_ref().map(Parameter::to_model),
            return_type: self.return_type.clone(),
            summary: self.summary.clone(),
            description: self.description.clone(),
            deprecation_message: self.deprecation_message.clone(),
        }
    }
}

/// One parameter. Terraform refuses null and unknown arguments unless the parameter
/// allows them.
#[derive(Clone, Debug)]
pub struct Parameter {
    name: String,
    ty: Type,
    description: Description,
    allow_null: bool,
    allow_unknown: bool,
}

impl Parameter {
    /// A parameter of this type; Terraform converts arguments to it before the call.
    pub fn new(name: impl Into<String>, ty: Type) -> Self {
        Parameter {
            name: name.into(),
            ty,
            description: Description::default(),
            allow_null: false,
            allow_unknown: false,
        }
    }

    /// What the parameter is for.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Description::plain(text);
        self
    }

    /// The function accepts null for this parameter (read it as `Option<T>`).
    pub fn allow_null(mut self) -> Self {
        self.allow_null = true;
        self
    }

    /// The function is called even when this argument is unknown (read it as
    /// [`Attr<T>`](crate::Attr)); otherwise Terraform returns unknown without calling it.
    pub fn allow_unknown(mut self) -> Self {
        self.allow_unknown = true;
        self
    }

    fn to_model(&self) -> model::Parameter {
        model::Parameter {
            name: self.name.clone(),
            ty: self.ty.clone(),
            description: self.description.clone(),
            allow_null: self.allow_null,
            allow_unknown: self.allow_unknown,
        }
    }
}

/// A function call's arguments, positional then variadic.
#[derive(Clone, Debug)]
pub struct Arguments {
    values: Vec<Value>,
}

impl Arguments {
    /// Arguments as the host passed them.
    pub fn new(values: Vec<Value>) -> Self {
        Arguments { values }
    }

    /// How many arguments there are (positional and variadic).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Reads argument `index` (counting from 0) into `T`; an error names the argument.
    pub fn get<T: DeserializeOwned>(&self, index: usize) -> Result<T, FunctionError> {
        let value = self
            .values
            .get(index)
            .ok_or_else(|| FunctionError::new(format!("argument {} is missing", index + 1)))?;
        from_value(value).map_err(|e| FunctionError::argument(index, e.to_string()))
    }

    /// Reads every argument from `index` on (the variadic ones) into `T`.
    pub fn rest<T: DeserializeOwned>(&self, index: usize) -> Result<Vec<T>, FunctionError> {
        (index..self.values.len()).map(|i| self.get(i)).collect()
    }

    /// The raw value of argument `index`.
    pub fn value(&self, index: usize) -> Option<&Value> {
        self.values.get(index)
    }
}

/// Why a function call failed; Terraform shows the text, pointing at the argument when
/// one is named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionError {
    /// What went wrong.
    pub text: String,
    /// Which argument was at fault, counting from 0.
    pub argument: Option<u32>,
}

impl FunctionError {
    /// An error about the call as a whole.
    pub fn new(text: impl Into<String>) -> Self {
        FunctionError { text: text.into(), argument: None }
    }

    /// An error about argument `index` (counting from 0).
    pub fn argument(index: usize, text: impl Into<String>) -> Self {
        FunctionError { text: text.into(), argument: u32::try_from(index).ok() }
    }
}

impl fmt::Display for FunctionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.argument {
            Some(i) => write!(f, "argument {}: {}", i + 1, self.text),
            None => f.write_str(&self.text),
        }
    }
}

impl std::error::Error for FunctionError {}

/// A provider function.
pub trait Function {
    /// The name, as in `provider::<provider>::<name>(...)`.
    const NAME: &'static str;

    /// What the function returns, fitted to the signature's return type.
    type Output: Serialize;

    /// The parameters and return type Terraform sees.
    fn signature(&self) -> Signature;

    /// Runs the function. Arguments were converted to the parameter types by Terraform.
    fn call(&self, args: &Arguments) -> Result<Self::Output, FunctionError>;
}

/// A function as the provider lists it: every [`Function`] is one.
pub trait AnyFunction {
    /// The name, as in [`Function::NAME`].
    fn name(&self) -> &str;
    /// The signature, as in [`Function::signature`].
    fn function_signature(&self) -> Signature;
    /// `CallFunction`: runs the function and fits the result to the return type.
    fn call_function(&self, arguments: Vec<Value>) -> Result<Value, FunctionError>;
}

impl<F: Function> AnyFunction for F {
    fn name(&self) -> &str {
        F::NAME
    }

    fn function_signature(&self) -> Signature {
        Function::signature(self)
    }

    fn call_function(&self, arguments: Vec<Value>) -> Result<Value, FunctionError> {
        let signature = Function::signature(self);
        let output = Function::call(self, &Arguments::new(arguments))?;
        let value = to_value(&output).map_err(|e| {
            FunctionError::new(format!("the provider returned an invalid value: {e}"))
        })?;
        conform(value, signature.return_type())
            .map_err(|e| FunctionError::new(format!("the provider returned an invalid value: {e}")))
    }
}
