import {
  OperationNodeTransformer,
  SchemableIdentifierNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type TableNode,
  type UnknownRow,
} from "kysely";

class PrefixTransformer extends OperationNodeTransformer {
  constructor(
    private readonly prefix: string,
    private readonly tables: ReadonlySet<string>,
  ) {
    super();
  }

  protected override transformTable(node: TableNode): TableNode {
    const transformed = super.transformTable(node);
    const name = transformed.table.identifier.name;
    if (!this.tables.has(name)) return transformed;
    return { ...transformed, table: SchemableIdentifierNode.create(this.prefix + name) };
  }
}

/**
 * Adds Evolution's table prefix (`evo_` by default) to the known Evolution
 * tables in every query, so queries are written, and typed, against the plain
 * names. Other names (aliases, CTEs) are left alone.
 */
export class TablePrefixPlugin implements KyselyPlugin {
  private readonly transformer: PrefixTransformer;

  constructor(prefix: string, tables: readonly string[]) {
    this.transformer = new PrefixTransformer(prefix, new Set(tables));
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
