// `terrarium/slow` in TypeScript: the same provider as tests/guests/slow (Rust), for the
// tests that compare what each SDK does when a call fails or is stopped part of the way.
//
// `slow_server` stands for a cloud server: create "starts" it at once (its `id` exists from
// then on) and then waits `boot_seconds` for it to boot (`stop.sleep`). When Terraform is
// stopped (the first Ctrl-C) during the wait, create returns the server as it is,
// `ready = false`, so that Terraform records it. With `fail_boot = true` the server never
// comes up: create fails, and keeps the started server with the error
// (`TerraformError.withState`), so Terraform records it as tainted. Its schema is at version
// 1: version 0 called `boot_seconds` `boot` (the state-upgrade tests). A server with
// `protect = true` refuses to be destroyed at plan time (`planDestroy`). The ephemeral
// `slow_lease` is a token on a lease of `seconds`, renewed while Terraform uses it and closed
// when it is done; both are logged. The data source `slow_page` fetches a URL through the
// sandbox's HTTP grants (the platform's `fetch`). `slow_vm` is what servers were before
// `slow_server`: a `moved` block turns one into a server (`movesFrom`, `moveState`), and it
// counts its creates and reads in its private state. A server's identity is its `id` (import
// by identity builds the server as import by ID does; identity schema version 0 called it
// `server`); the list resource `slow_server` lists
// `server-1` to `server-<count>` (`terraform query`; their display names start with `prefix`,
// the server `broken` does not answer, and the write-only `admin_password` the listing code
// returns is dropped); the action `slow_reboot` reboots a server in `steps`, reporting each
// step; and `slow_vm` defers its plan while its `label` is unknown. `slow_network`'s
// `address` blocks are the provider's to set (a computed block, `{ computed: true }`).

import {
  Action,
  DataSource,
  DeferredReason,
  EphemeralResource,
  Provider,
  Resource,
  TerraformError,
  block,
  bool,
  dynamic,
  isUnknown,
  log,
  nested,
  number,
  pattern,
  range,
  schema,
  serve,
  stop,
  string,
  type ListResults,
  type MovedState,
  type PlanAnswer,
  type PlanRequest,
  type PrivateState,
  type Progress,
  type State,
  type TfValue,
} from '@terrarium/sdk';

const server = schema({
  description: 'A server that takes `boot_seconds` to boot.',
  // Version 0 called `boot_seconds` `boot`.
  version: 1,
  attributes: {
    id: string().computed().useStateForUnknown(),
    boot_seconds: number().required().requiresReplace().describe('How long the server takes to boot.'),
    fail_boot: bool().optional().requiresReplace().describe('Makes the server fail to boot.'),
    ready: bool().computed().describe('Whether it finished booting before create returned.'),
    protect: bool().optional().describe('Refuses to be destroyed while true.'),
    report_url: string().optional().describe('Where create reports, with a GET, once it stops waiting for the boot.'),
    admin_password: string().optional().writeOnly().describe("The administrator's password, given to create, never stored."),
  },
});
type Server = State<typeof server>;

/** The server `server-<bootSeconds>`, up. */
function serverUp(bootSeconds: number): Server {
  return {
    id: `server-${bootSeconds}`,
    boot_seconds: bootSeconds,
    fail_boot: null,
    ready: true,
    protect: null,
    report_url: null,
    admin_password: null,
  } as Server;
}

class ServerResource extends Resource<typeof server> {
  typeName = 'slow_server';
  schema = server;
  // Its identity is its `id`, the state attribute of the same name.
  identity = schema({
    description: 'The identity of a server.',
    // Version 0 called `id` `server`.
    version: 1,
    attributes: { id: string().required().describe('The server\'s ID, `server-N`.') },
  });
  listConfig = schema({
    description: 'Which servers to list.',
    attributes: {
      count: number().required().describe('Lists `server-1` to `server-<count>`.'),
      prefix: string()
        .default('server-')
        .validate(pattern('^[a-z]+-$'))
        .describe("What each listed server's display name starts with. Defaults to `server-`."),
      broken: number().optional().describe('A server that does not answer when listed: its item carries the error.'),
    },
  });

  async create(planned: Server): Promise<Server> {
    // The server exists from here on.
    const id = `server-${planned.boot_seconds}`;
    log.info('slow_server started', { id });
    if (planned.fail_boot === true) {
      const started = { ...planned, id, ready: false };
      throw new TerraformError(
        'Server failed to boot',
        'The server was started but never answered; it is kept so that the next apply replaces it',
      ).withState(started);
    }
    let ready = true;
    try {
      await stop.sleep(Number(planned.boot_seconds));
    } catch (e) {
      if (!(e instanceof stop.Stopped)) throw e;
      log.info('slow_server: Terraform is stopping; returning the server as it is', { id });
      ready = false;
    }
    if (typeof planned.report_url === 'string') {
      // After a stop the SDK's fetch sends nothing: this fails at once.
      try {
        await fetch(planned.report_url);
      } catch (e) {
        log.info('slow_server: no report', { error: String(e) });
      }
    }
    return { ...planned, id, ready };
  }

  importState(id: string): Server {
    // `server-N` boots in N seconds and is up.
    const number = /^server-(\d+)$/.exec(id)?.[1];
    if (number === undefined) throw new TerraformError('Cannot import', `${JSON.stringify(id)} is not a server id (server-N)`);
    return serverUp(Number(number));
  }

  importByIdentity(identity: Record<string, TfValue>): Server {
    return this.importState(String(identity.id));
  }

  upgradeIdentity(_version: number, raw: TfValue): Record<string, TfValue> {
    // Version 0 called `id` `server`.
    return { id: (raw as Record<string, TfValue>).server ?? null };
  }

  validateList(config: Record<string, TfValue>): void {
    // Attributes may be unknown here: check only what is known.
    const { broken, count } = config;
    if (typeof broken === 'number' && typeof count === 'number' && !(broken >= 1 && broken <= count)) {
      throw new TerraformError('Invalid list configuration', `broken = ${broken} is not one of the ${count} servers listed.`);
    }
  }

  list(config: Record<string, TfValue>, results: ListResults<Server>): void {
    for (let n = 1; n <= Number(config.count); n++) {
      const state = (): Server => {
        if (n === config.broken) throw new TerraformError('Server did not answer', `server-${n} did not answer.`);
        // The API hands the password back; the SDK drops it (write-only).
        return { ...serverUp(n), admin_password: 'listed-secret' };
      };
      if (!results.push({ id: `server-${n}` }, `${String(config.prefix)}${n}`, state)) break;
    }
  }

  upgrade(version: number, raw: TfValue): Server {
    // Version 0 called `boot_seconds` `boot`.
    const { boot, ...rest } = raw as Record<string, TfValue>;
    return { ...rest, boot_seconds: boot } as Server;
  }

  // A `slow_vm` becomes a server that is up: `vm-N` is `server-N`.
  readonly movesFrom = ['slow_vm'];

  moveState(source: MovedState): Server {
    return serverUp(Number((source.state as Record<string, TfValue>).seconds));
  }

  planDestroy(prior: Server): void {
    if (prior.protect === true) {
      throw new TerraformError('Server is protected', 'Set protect = false and apply before destroying it.');
    }
  }

  read(current: Server): Server {
    // Nothing outside Terraform's state to look at: keep the state as it is.
    return current;
  }

  delete(): void {
    // The server is imaginary: nothing to delete.
  }
}

const vm = schema({
  description: 'What servers were before `slow_server`.',
  attributes: {
    id: string().computed().useStateForUnknown(),
    seconds: number().required().requiresReplace().describe('How long the VM takes to boot.'),
    label: string()
      .optional()
      .validate(pattern('^[a-z][a-z0-9-]*$'))
      .describe('A name in lower case letters, digits and dashes.'),
    cpus: number().default(2).describe('How many CPUs. Defaults to `2`.'),
    password: string().optional().sensitive().describe('The console password, hidden in plans and output.'),
    token: string().optional().writeOnly().describe('A token the VM is given at create, never stored.'),
    token_length: number().computed().describe('How many characters the token had.'),
    serial: number().optional().describe('A serial number (any integer, also beyond 2^53).'),
    next_serial: number().computed().describe('The serial number after `serial`.'),
    disks: nested
      .set({
        size: number().required().describe('Its size in GB.'),
        kind: string().default('ssd').describe('Its kind. Defaults to `"ssd"`.'),
        id: string()
          .computed()
          .useStateForUnknown()
          .describe(
            'Given when the disk is made; a disk keeps its id (unknown in a plan only for a new disk, matched in the set by what is configured).',
          ),
      })
      .optional()
      .describe("The VM's disks."),
  },
  blocks: {
    nic: block.list(
      {
        network: string()
          .required()
          .requiresReplace()
          .describe('The network it is on; another network replaces the VM (requires-replace at depth).'),
        mac: string().computed().useStateForUnknown().describe('Given when the VM is made, kept while it lives.'),
        meta: dynamic()
          .optional()
          .describe('Anything, of the type the configuration gives it, kept as given (a dynamic attribute inside a block).'),
      },
      {},
      { maxItems: 1, description: 'Its network interface.' },
    ),
  },
});
type Vm = State<typeof vm>;

/** The VM `planned` describes, made: what the provider computes set, and an id for each new disk. */
function vmMade(planned: Vm): Vm {
  // Integers beyond 2^53 arrive as bigint: exact arithmetic.
  const serial = planned.serial;
  const nextSerial = serial === null ? null : typeof serial === 'bigint' ? serial + 1n : BigInt(serial as number) + 1n;
  const disks = planned.disks?.map((d) => (typeof d.id === 'string' ? d : { ...d, id: `disk-${String(d.size)}-${String(d.kind)}` }));
  const nic = planned.nic.map((n) => (typeof n.mac === 'string' ? n : { ...n, mac: `mac-${String(n.network)}` }));
  return {
    ...planned,
    nic,
    id: `vm-${String(planned.seconds)}`,
    token_length: [...String(planned.token ?? '')].length,
    next_serial: nextSerial,
    disks: disks ?? null,
  } as Vm;
}

class VmResource extends Resource<typeof vm> {
  typeName = 'slow_vm';
  schema = vm;

  // The private state counts what happened to the VM: created once, read N times.
  create(planned: Vm, privateState: PrivateState): Vm {
    privateState.set('created', 1);
    return vmMade(planned);
  }

  update(_prior: Vm, planned: Vm): Vm {
    return vmMade(planned);
  }

  // A VM cannot be planned before its label is known: the plan is deferred.
  plan(request: PlanRequest<typeof vm>): PlanAnswer<typeof vm> {
    if (isUnknown(request.config?.label)) throw TerraformError.deferred(DeferredReason.ResourceConfigUnknown);
    return { planned: request.planned, requiresReplace: request.requiresReplace };
  }

  read(current: Vm, privateState: PrivateState): Vm {
    privateState.set('reads', (privateState.get<number>('reads') ?? 0) + 1);
    return current;
  }

  delete(): void {}
}

const network = schema({
  description:
    'A network whose addresses the provider assigns: `address` is a computed nested block (protocol 6.11), which a Terraform older than 1.16 sees as a computed attribute.',
  attributes: {
    id: string().computed().useStateForUnknown(),
    size: number().required().describe('How many addresses the network gets.'),
    note: string().optional().describe('A note; changing it updates the network in place.'),
  },
  blocks: {
    address: block.list(
      { ip: string().computed(), port: number().computed() },
      {},
      { computed: true, description: 'The addresses the provider assigned.' },
    ),
  },
});
type Network = State<typeof network>;

/** The addresses of a network of `size` (changed by the note, so that an update shows a new value). */
function networkAssigned(planned: Network): Network {
  const port = planned.note === null ? 443 : 8443;
  const size = Number(planned.size);
  const address = Array.from({ length: size }, (_, i) => ({ ip: `10.0.0.${i + 1}`, port }));
  return { ...planned, id: `net-${size}`, address };
}

class NetworkResource extends Resource<typeof network> {
  typeName = 'slow_network';
  schema = network;

  create(planned: Network): Network {
    return networkAssigned(planned);
  }

  update(_prior: Network, planned: Network): Network {
    return networkAssigned(planned);
  }

  read(current: Network): Network {
    return current;
  }

  delete(): void {}
}

const lease = schema({
  description: 'A token on a lease of `seconds`, renewed while Terraform uses it.',
  attributes: {
    seconds: number().required().describe('How long each lease lasts.'),
    token: string().computed().describe('The leased token.'),
  },
});

/** The lease's length, kept as its private data. */
function leaseSeconds(privateData: Uint8Array | undefined): number {
  return Number(new TextDecoder().decode(privateData ?? new Uint8Array())) || 1;
}

function renewAfter(seconds: number): Date {
  return new Date(Date.now() + Math.max(seconds, 1) * 1000);
}

class LeaseResource extends EphemeralResource<typeof lease> {
  typeName = 'slow_lease';
  schema = lease;

  open(config: State<typeof lease>) {
    const seconds = Number(config.seconds);
    log.info('slow_lease opened', { seconds });
    return {
      result: { ...config, token: `token-${seconds}` },
      private: new TextEncoder().encode(String(seconds)),
      renewAt: renewAfter(seconds),
    };
  }

  renew(privateData: Uint8Array | undefined) {
    const seconds = leaseSeconds(privateData);
    log.info('slow_lease renewed', { seconds });
    return { private: privateData, renewAt: renewAfter(seconds) };
  }

  close(privateData: Uint8Array | undefined): void {
    log.info('slow_lease closed', { seconds: leaseSeconds(privateData) });
  }
}

const page = schema({
  description: "A URL's status and text, fetched through the sandbox's HTTP grants.",
  attributes: {
    url: string().required().describe('What to fetch.'),
    status: number().computed().describe('The HTTP status.'),
    text: string().computed().describe('The body, as text.'),
  },
});

class PageData extends DataSource<typeof page> {
  typeName = 'slow_page';
  schema = page;

  async read(config: State<typeof page>): Promise<State<typeof page>> {
    // A refused origin throws a TerraformError that says how to grant it.
    const response = await fetch(String(config.url));
    return { ...config, status: response.status, text: await response.text() };
  }
}

const reboot = schema({
  description: 'Reboots a server in steps.',
  attributes: {
    server_id: string().required().describe('The server to reboot.'),
    steps: number()
      .default(3)
      .validate(range(1, 10))
      .describe('How many steps the reboot takes, 1 to 10. Defaults to `3`.'),
  },
});

class RebootAction extends Action<typeof reboot> {
  typeName = 'slow_reboot';
  schema = reboot;

  invoke(config: State<typeof reboot>, progress: Progress): void {
    for (let step = 1; step <= Number(config.steps); step++) {
      progress.report(`rebooting ${String(config.server_id)}: step ${step}/${String(config.steps)}`);
    }
  }
}

const serverResource = new ServerResource();

class Slow extends Provider {
  resources = [serverResource, new VmResource(), new NetworkResource()];
  dataSources = [new PageData()];
  ephemeralResources = [new LeaseResource()];
  listResources = [serverResource];
  actions = [new RebootAction()];
}

export const { provider, behaviour } = serve(new Slow());
