//! List resources in unit tests: [`Harness::list`].

use serde_json::Value as Json;

use super::{Failure, Harness, fit, split};
use crate::list::{ListRequest, Listing};
use crate::provider::Provider;
use crate::server::find_list;

/// List resources in unit tests.
impl<P: Provider> Harness<P> {
    /// Validates and runs a listing with a JSON `config` block, as `terraform query` does,
    /// with resource objects and no limit.
    pub fn list(&self, type_name: &str, config: Json) -> std::result::Result<Listing, Failure> {
        self.list_with(type_name, config, true, 0)
    }

    /// [`list`](Self::list), saying whether items carry resource objects and how many
    /// Terraform reads (`limit`; 0 for no limit).
    pub fn list_with(
        &self,
        type_name: &str,
        config: Json,
        include_resource_object: bool,
        limit: i64,
    ) -> std::result::Result<Listing, Failure> {
        let server = self.server();
        let schema =
            {
                let lists = server.provider().list_resources();
                find_list(&lists, type_name)
                    .map(|l| l.list_resource_schema())
                    .map_err(|d| Failure { step: "config", diagnostics: vec![d], state: None })?
            };
        let config = fit(&schema, &config)?;
        let mut warnings =
            split("validate", server.validate_list_resource_config(type_name, &config))?;
        let request = ListRequest {
            type_name: type_name.to_string(),
            config,
            include_resource_object,
            limit,
        };
        let mut items = Vec::new();
        let diagnostics = server.list_resource(request, &mut |item| {
            items.push(item);
            true
        });
        let item_diagnostics = items.iter_mut().flat_map(|i| std::mem::take(&mut i.diagnostics));
        warnings.extend(split("list", diagnostics.into_iter().chain(item_diagnostics).collect())?);
        Ok(Listing { items, warnings })
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use super::*;
    use crate::diag::{Diagnostics, Result};
    use crate::identity::{AnyIdentity, ResourceIdentity};
    use crate::list::{AnyListResource, ListResource, ListResults};
    use crate::resource::Resource;
    use crate::server::Server;
    use crate::{AnyResource, Attr, Model, Value};

    /// Counts how many states the listing built, to show they are built only on request.
    #[derive(Default)]
    struct Shelf {
        states_built: Cell<usize>,
    }

    impl Provider for Shelf {
        fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
            vec![Box::new(BookResource { states_built: &self.states_built })]
        }
        fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
            vec![Box::new(BookResource { states_built: &self.states_built })]
        }
    }

    struct BookResource<'a> {
        states_built: &'a Cell<usize>,
    }

    #[derive(Serialize, Deserialize, Model)]
    struct Book {
        title: String,
        pages: i64,
        #[tf(write_only)]
        secret_note: Option<String>,
        #[tf(computed)]
        isbn: Attr<String>,
    }

    #[derive(Serialize, Deserialize, Model)]
    struct BookIdentity {
        #[tf(required_for_import)]
        isbn: String,
    }

    #[derive(Deserialize, Model)]
    struct BookFilter {
        #[tf(validate = range(0.0, 10000.0))]
        min_pages: Option<i64>,
        /// Lists a broken book after this many good ones.
        broken_after: Option<i64>,
    }

    impl Resource for BookResource<'_> {
        const TYPE_NAME: &'static str = "t_book";
        type State = Book;
        fn create(&self, planned: Book) -> Result<Book> {
            Ok(planned)
        }
        fn identity(&self) -> Option<&dyn AnyIdentity<Book>> {
            Some(self)
        }

        fn read(&self, current: Book) -> Result<Option<Book>> {
            // Nothing outside Terraform's state to look at: keep the state as it is.
            Ok(Some(current))
        }

        fn delete(&self, _prior: Book) -> Result<()> {
            // Nothing outside Terraform's state to delete: Terraform forgets it.
            Ok(())
        }
    }

    impl ResourceIdentity for BookResource<'_> {
        type Identity = BookIdentity;
        type Source = BookIdentity;
        fn identity_of(&self, source: BookIdentity) -> Option<BookIdentity> {
            Some(source)
        }
    }

    impl ListResource for BookResource<'_> {
        type Config = BookFilter;

        fn list(&self, filter: BookFilter, results: &mut ListResults<Self>) -> Result<()> {
            let books = [("Dune", 412), ("Emma", 474), ("Ubik", 202)];
            for (i, (title, pages)) in books.into_iter().enumerate() {
                if filter.broken_after == Some(i as i64) {
                    let _ = results.push(BookIdentity { isbn: "bad".into() }, "broken", || {
                        Err(Diagnostics::error("Unreadable", "the spine is broken"))
                    });
                    return Ok(());
                }
                if filter.min_pages.is_some_and(|min| pages < min) {
                    continue;
                }
                let identity = BookIdentity { isbn: format!("isbn-{title}") };
                let more = results.push(identity, title, || {
                    self.states_built.set(self.states_built.get() + 1);
                    let isbn = format!("isbn-{title}").into();
                    Ok(Book {
                        title: title.to_string(),
                        pages,
                        secret_note: Some("shh".into()),
                        isbn,
                    })
                });
                if !more {
                    break;
                }
            }
            Ok(())
        }
    }

    #[test]
    fn items_carry_identity_name_and_the_state_without_write_only_values() {
        let h = Harness::new(Shelf::default());
        let listing = h.list("t_book", json!({"min_pages": 300})).unwrap();
        assert_eq!(listing.display_names(), ["Dune", "Emma"]);
        let dune = &listing.items[0];
        assert_eq!(dune.identity.attr("isbn"), Some(&Value::string("isbn-Dune")));
        let object = dune.resource_object.as_ref().expect("objects were asked for");
        assert_eq!(object.attr("pages"), Some(&Value::Number(412.into())));
        assert_eq!(object.attr("secret_note"), Some(&Value::Null));
        assert!(h.server().get_schema().0.list_resources.contains_key("t_book"));
    }

    #[test]
    fn states_are_built_only_when_asked_for_and_the_limit_stops_the_listing() {
        let h = Harness::new(Shelf::default());
        let listing = h.list_with("t_book", json!({}), false, 0).unwrap();
        assert_eq!(listing.items.len(), 3);
        assert!(listing.items.iter().all(|i| i.resource_object.is_none()));
        assert_eq!(h.server().provider().states_built.get(), 0);

        let limited = h.list_with("t_book", json!({}), true, 2).unwrap();
        assert_eq!(limited.display_names(), ["Dune", "Emma"]);
        assert_eq!(h.server().provider().states_built.get(), 2, "the third state was never built");
    }

    #[test]
    fn a_sink_that_wants_no_more_ends_the_listing() {
        let h = Harness::new(Shelf::default());
        let config =
            fit(&BookResource { states_built: &Cell::new(0) }.list_schema(), &json!({})).unwrap();
        let mut seen = Vec::new();
        let request = ListRequest {
            type_name: "t_book".into(),
            config,
            include_resource_object: false,
            limit: 100,
        };
        let diagnostics = h.server().list_resource(request, &mut |item| {
            seen.push(item.display_name);
            false
        });
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(seen, ["Dune"]);
    }

    #[test]
    fn an_item_error_names_the_item_and_fails_the_listing() {
        let h = Harness::new(Shelf::default());
        let failed = h.list("t_book", json!({"broken_after": 1})).unwrap_err();
        assert_eq!(failed.step, "list");
        assert!(failed.mentions("Listing \"broken\", its state: the spine is broken"), "{failed}");
        assert_eq!(h.list("t_book", json!({"min_pages": -1})).unwrap_err().step, "validate");
        assert!(h.list("t_nope", json!({})).unwrap_err().mentions("It has: t_book."));
    }

    /// Lists `t_book` without registering the resource type.
    #[derive(Default)]
    struct Unregistered {
        states_built: Cell<usize>,
    }

    impl Provider for Unregistered {
        fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
            vec![Box::new(BookResource { states_built: &self.states_built })]
        }
    }

    #[test]
    fn a_list_resource_needs_its_resource_type_registered() {
        let (_, diagnostics) = Server::new(Unregistered::default()).get_schema();
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert!(
            diagnostics[0].detail.contains("List it in Provider::resources too"),
            "{diagnostics:?}"
        );
        assert!(Server::new(Shelf::default()).get_schema().1.is_empty());
    }
}
