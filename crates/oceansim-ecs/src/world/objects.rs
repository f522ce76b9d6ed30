//! Object components (one `Option<T>` per entity) and resources (one value per world).

use super::*;

impl World {
    /// Registers an object component: one `Option<T>` per entity (`None`
    /// for every existing and newly spawned entity until set).
    pub fn add_object<T: 'static>(&mut self, name: &str) -> Result<ObjectHandle<T>> {
        self.check_new_name(name)?;
        let index = self.objects.len();
        let store = ObjectColumn::<T>(RefCell::new((0..self.n).map(|_| None).collect()));
        self.objects.push(Objects {
            name: name.to_owned(),
            store: Box::new(store),
        });
        self.by_name.insert(name.to_owned(), Slot::Object(index));
        self.version += 1;
        Ok(ObjectHandle {
            index,
            _t: PhantomData,
        })
    }

    /// Resolves an object component's handle by name.
    pub fn object_handle<T: 'static>(&self, name: &str) -> Result<ObjectHandle<T>> {
        let Some(Slot::Object(index)) = self.by_name.get(name).copied() else {
            return Err(self.unknown(name));
        };
        let store = &self.objects[index].store;
        if store.as_any().downcast_ref::<ObjectColumn<T>>().is_none() {
            return Err(EcsError::DType {
                name: name.to_owned(),
                actual: store.type_name(),
                requested: std::any::type_name::<T>(),
            });
        }
        Ok(ObjectHandle {
            index,
            _t: PhantomData,
        })
    }

    fn object_cell<T: 'static>(&self, h: ObjectHandle<T>) -> &RefCell<Vec<Option<T>>> {
        // Handles are made only after a type check and object components
        // are never removed, so the downcast cannot fail.
        &self.objects[h.index]
            .store
            .as_any()
            .downcast_ref::<ObjectColumn<T>>()
            .expect("object handle type checked at creation")
            .0
    }

    /// Shared view of an object component, one slot per row.
    pub fn objects<T: 'static>(&self, h: ObjectHandle<T>) -> Ref<'_, [Option<T>]> {
        self.guard_access(Slot::Object(h.index), false);
        Ref::map(self.object_cell(h).borrow(), Vec::as_slice)
    }

    /// Mutable view of an object component.
    pub fn objects_mut<T: 'static>(&self, h: ObjectHandle<T>) -> RefMut<'_, [Option<T>]> {
        self.guard_access(Slot::Object(h.index), true);
        RefMut::map(self.object_cell(h).borrow_mut(), Vec::as_mut_slice)
    }

    /// Registers a resource, a single value shared by the systems that
    /// declare its name in their access.
    pub fn insert_resource<T: 'static>(
        &mut self,
        name: &str,
        value: T,
    ) -> Result<ResourceHandle<T>> {
        self.check_new_name(name)?;
        let index = self.resources.len();
        self.resources.push(Resource {
            name: name.to_owned(),
            type_name: std::any::type_name::<T>(),
            value: Box::new(RefCell::new(value)),
        });
        self.by_name.insert(name.to_owned(), Slot::Resource(index));
        self.version += 1;
        Ok(ResourceHandle {
            index,
            _t: PhantomData,
        })
    }

    /// Resolves a resource's handle by name.
    pub fn resource_handle<T: 'static>(&self, name: &str) -> Result<ResourceHandle<T>> {
        let Some(Slot::Resource(index)) = self.by_name.get(name).copied() else {
            return Err(self.unknown(name));
        };
        let r = &self.resources[index];
        if r.value.downcast_ref::<RefCell<T>>().is_none() {
            return Err(EcsError::DType {
                name: name.to_owned(),
                actual: r.type_name,
                requested: std::any::type_name::<T>(),
            });
        }
        Ok(ResourceHandle {
            index,
            _t: PhantomData,
        })
    }

    fn resource_cell<T: 'static>(&self, h: ResourceHandle<T>) -> &RefCell<T> {
        self.resources[h.index]
            .value
            .downcast_ref::<RefCell<T>>()
            .expect("resource handle type checked at creation")
    }

    /// Shared view of a resource.
    pub fn resource<T: 'static>(&self, h: ResourceHandle<T>) -> Ref<'_, T> {
        self.guard_access(Slot::Resource(h.index), false);
        self.resource_cell(h).borrow()
    }

    /// Mutable view of a resource.
    pub fn resource_mut<T: 'static>(&self, h: ResourceHandle<T>) -> RefMut<'_, T> {
        self.guard_access(Slot::Resource(h.index), true);
        self.resource_cell(h).borrow_mut()
    }

    /// Names of the object components, in registration order.
    pub fn object_names(&self) -> Vec<&str> {
        self.objects.iter().map(|o| o.name.as_str()).collect()
    }

    /// Names of the resources, in registration order.
    pub fn resource_names(&self) -> Vec<&str> {
        self.resources.iter().map(|r| r.name.as_str()).collect()
    }
}
