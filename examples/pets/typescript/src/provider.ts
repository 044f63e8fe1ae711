// `terrarium/pets` in TypeScript: pets kept as JSON files in a granted directory. The same
// provider exists in Rust and Python; examples/pets/SPEC.md is what all of them do.

import {
  FunctionError,
  Provider,
  ProviderFunction,
  Resource,
  DataSource,
  TerraformError,
  block,
  bool,
  files,
  length,
  log,
  nested,
  number,
  oneOf,
  param,
  range,
  schema,
  serve,
  set,
  string,
  type State,
  type TfValue,
} from '@terrarium/sdk';

const config = schema({
  attributes: {
    directory: string().required().describe('Where the pets are kept (grant it: --allow-dir DIR:rw).'),
  },
});

const pet = schema({
  description: 'A pet, kept as a JSON file in the provider directory.',
  attributes: {
    id: string().computed().useStateForUnknown().describe('pet-N, assigned at create.'),
    name: string().required().requiresReplace().validate(length(1, 32)),
    species: string().default('dog').validate(oneOf('dog', 'cat', 'bird')),
    legs: number().default(4).validate(range(0, 8)),
    tags: set(string()).optional(),
    secret: string().optional().sensitive(),
    owner: nested
      .single({
        name: string().required(),
        email: string().optional(),
        notify: bool().default(false),
      })
      .optional(),
    toys: nested
      .list({
        kind: string().required(),
        color: string().default('red'),
        serial: string().computed().useStateForUnknown(),
      })
      .optional(),
    vaccines: nested
      .set({
        name: string().required(),
        batch: string().computed().useStateForUnknown(),
      })
      .optional(),
  },
  blocks: {
    collar: block.list(
      {
        material: string().default('leather'),
        size: string().required().requiresReplace(),
      },
      {},
      { maxItems: 1 },
    ),
  },
});

type Pet = State<typeof pet>;

class Pets extends Provider<typeof config> {
  schema = config;
  directory = '';

  configure(c: State<typeof config>): void {
    if (!c.directory.startsWith('/')) {
      throw new TerraformError('Relative directory', `${c.directory} is relative; use an absolute path.`, ['directory']);
    }
    this.directory = c.directory;
  }

  file(id: string): string {
    return `${this.directory}/${id}.json`;
  }

  /** The stored pet `id`, or null when there is no such file. */
  load(id: string): Record<string, TfValue> | null {
    if (!files.exists(this.file(id))) return null;
    return { ...JSON.parse(files.readText(this.file(id))), id };
  }

  save(p: Pet): void {
    const { id, ...stored } = p;
    files.writeText(this.file(String(id)), JSON.stringify(stored));
  }

  nextId(): string {
    const counter = `${this.directory}/next-id`;
    const n = files.exists(counter) ? Number(files.readText(counter).trim()) : 1;
    files.writeText(counter, String(n + 1));
    return `pet-${n}`;
  }

  resources = [new PetResource(this)];
  dataSources = [new PetData(this)];
  functions = [new Greeting()];
}

/**
 * The computed values of new elements: toy serials `<pet id>-toy-<index>`, vaccine batches
 * `<pet id>-<name>` (elements the pet had keep theirs: the plan carries them).
 */
function withSerials(p: Pet): Pet {
  const toys = p.toys?.map((toy, i) => (typeof toy.serial === 'string' ? toy : { ...toy, serial: `${p.id}-toy-${i}` }));
  const vaccines = p.vaccines?.map((v) => (typeof v.batch === 'string' ? v : { ...v, batch: `${p.id}-${v.name}` }));
  return { ...p, toys: toys ?? null, vaccines: vaccines ?? null };
}

class PetResource extends Resource<typeof pet> {
  typeName = 'pets_pet';
  schema = pet;

  constructor(private readonly provider: Pets) {
    super();
  }

  create(planned: Pet): Pet {
    const created = withSerials({ ...planned, id: this.provider.nextId() });
    this.provider.save(created);
    log.info('created a pet', { id: created.id, name: created.name });
    return created;
  }

  read(current: Pet): Pet | null {
    return this.provider.load(String(current.id)) as Pet | null;
  }

  update(_prior: Pet, planned: Pet): Pet {
    const updated = withSerials(planned);
    this.provider.save(updated);
    return updated;
  }

  delete(prior: Pet): void {
    files.remove(this.provider.file(String(prior.id)));
  }

  importState(id: string): Pet {
    const found = this.provider.load(id);
    if (!found) throw new TerraformError('Cannot import', `no pet with id ${id}`);
    return found as Pet;
  }
}

const petData = schema({
  attributes: {
    id: string().required(),
    name: string().computed(),
    species: string().computed(),
    legs: number().computed(),
    tags: set(string()).computed(),
  },
});

class PetData extends DataSource<typeof petData> {
  typeName = 'pets_pet';
  schema = petData;

  constructor(private readonly provider: Pets) {
    super();
  }

  read(c: State<typeof petData>): State<typeof petData> {
    const found = this.provider.load(c.id);
    if (!found) throw new TerraformError('No such pet', `no pet with id ${c.id}`, ['id']);
    return {
      id: c.id,
      name: found.name as string,
      species: found.species as string,
      legs: found.legs as number,
      tags: (found.tags as string[] | null) ?? null,
    };
  }
}

class Greeting extends ProviderFunction {
  name = 'greeting';
  parameters = [param('name', string())];
  returns = 'string' as const;
  summary = 'A greeting for a pet.';

  call(name: TfValue): TfValue {
    if (name === '') throw new FunctionError('name must not be empty', 0);
    return `Hello, ${String(name)}!`;
  }
}

export const { provider, behaviour } = serve(new Pets());
