import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRequest } from "../../src/sources/openapi/build-request.js";
import { ClientCredentialsToken } from "../../src/sources/openapi/client-credentials-token.js";
import type { Operation } from "../../src/sources/openapi/operations.js";
import { operationTool } from "../../src/sources/openapi/tool-schema.js";
import { startEchoApi } from "../fixtures/echo-api.js";
import { everyChild, startBroker, type TestBroker } from "../helpers/broker.js";

/** Shaped like the Swagger Petstore (3.0, YAML), with a parameter of every style. */
const PETSTORE = `
openapi: 3.0.3
info:
  title: Petstore
  version: 1.0.0
  description: Pets and their photos
servers:
  - url: /v1
paths:
  /pets:
    get:
      operationId: listPets
      summary: List all pets
      parameters:
        - { name: limit, in: query, description: How many at most, schema: { type: integer, maximum: 100 } }
        - { name: tags, in: query, schema: { type: array, items: { type: string } } }
        - { name: ids, in: query, explode: false, schema: { type: array, items: { type: integer } } }
        - { name: sizes, in: query, style: spaceDelimited, explode: false, schema: { type: array, items: { type: string } } }
        - { name: colors, in: query, style: pipeDelimited, explode: false, schema: { type: array, items: { type: string } } }
        - name: filter
          in: query
          style: deepObject
          explode: true
          schema: { type: object, properties: { kind: { type: string }, age: { type: integer } } }
        - { name: X-Request-Id, in: header, schema: { type: string } }
        - { name: X-Tags, in: header, schema: { type: array, items: { type: string } } }
        - { name: session, in: cookie, schema: { type: string } }
      responses:
        "200": { description: A list of pets }
    post:
      operationId: createPet
      summary: Create a pet
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/NewPet" }
      responses:
        "201": { description: Created }
  /pets/{petId}:
    parameters:
      - { name: petId, in: path, required: true, schema: { type: string } }
    get:
      operationId: showPetById
      responses: { "200": { description: A pet } }
    delete:
      operationId: deletePet
      responses: { "204": { description: Gone } }
  /pets/{petId}/photo:
    get:
      parameters:
        - { name: petId, in: path, required: true, schema: { type: string } }
      responses: { "200": { description: A photo } }
  /labels/{label}/{coords}:
    get:
      operationId: labelled
      parameters:
        - { name: label, in: path, required: true, style: label, schema: { type: array, items: { type: string } } }
        - name: coords
          in: path
          required: true
          style: matrix
          explode: true
          schema: { type: object, properties: { x: { type: integer }, y: { type: integer } } }
      responses: { "200": { description: ok } }
  /missing/{id}:
    get:
      operationId: getMissing
      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
      responses: { "404": { description: not found } }
  /elsewhere:
    get:
      operationId: goElsewhere
      responses: { "302": { description: moved } }
  /forms:
    post:
      operationId: submitForm
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: { type: object, properties: { name: { type: string }, tags: { type: array, items: { type: string } } } }
      responses: { "200": { description: ok } }
  /uploads:
    post:
      operationId: upload
      requestBody:
        content:
          multipart/form-data:
            schema: { type: object, properties: { file: { type: string, format: binary } } }
      responses: { "200": { description: ok } }
components:
  securitySchemes:
    machines:
      type: oauth2
      flows:
        clientCredentials:
          tokenUrl: /oauth/token
          scopes: { "pets:read": Read pets }
  schemas:
    NewPet:
      type: object
      required: [name]
      example: { name: Rex }
      x-internal: true
      properties:
        name: { type: string }
        tag: { type: string }
        x-rating: { type: integer }
        parent: { $ref: "#/components/schemas/NewPet" }
`;

/** Swagger 2.0, as many public APIs still publish theirs. */
const SWAGGER_2 = {
  swagger: "2.0",
  info: { title: "Stores", version: "1" },
  basePath: "/v2",
  paths: {
    "/stores/{storeId}/orders": {
      post: {
        operationId: "placeOrder",
        parameters: [
          { name: "storeId", in: "path", required: true, type: "integer" },
          {
            name: "items",
            in: "query",
            type: "array",
            items: { type: "string" },
            collectionFormat: "csv",
          },
          { name: "order", in: "body", required: true, schema: { $ref: "#/definitions/Order" } },
        ],
        responses: { 200: { description: "ok" } },
      },
    },
  },
  definitions: { Order: { type: "object", properties: { quantity: { type: "integer" } } } },
};

let api: Awaited<ReturnType<typeof startEchoApi>>;
let broker: TestBroker;
let folder: string;

beforeAll(async () => {
  api = await startEchoApi({ "/openapi.yaml": { type: "application/yaml", body: PETSTORE } });
  folder = mkdtempSync(join(tmpdir(), "openapi-"));
  writeFileSync(
    join(folder, "stores.json"),
    JSON.stringify({ ...SWAGGER_2, host: new URL(api.url).host }),
  );
  process.env.PETSTORE_KEY = "key-123";
  process.env.PETSTORE_SECRET = "secret-1";
  broker = await startBroker({
    registry: { predefined: false },
    tree: [
      {
        path: "/pets",
        source: {
          backend: "openapi",
          spec: `${api.url}/openapi.yaml`,
          auth: { api_key: { in: "header", name: "X-Api-Key", value: "${PETSTORE_KEY}" } },
        },
      },
      {
        path: "/secure",
        source: {
          backend: "openapi",
          spec: `${api.url}/openapi.yaml`,
          auth: {
            client_credentials: { client_id: "client-1", client_secret: "${PETSTORE_SECRET}" },
          },
          operations: ["listPets"],
        },
      },
      {
        path: "/stores",
        source: {
          backend: "openapi",
          spec: join(folder, "stores.json"),
          base_url: `${api.url}/v2`,
          auth: { bearer: "tok-9" },
          operations: ["!deleteStore"],
        },
      },
    ],
  });
}, 30_000);
afterAll(async () => {
  await broker?.close();
  await api?.close();
});

const call = async (path: string, args: Record<string, unknown> = {}) =>
  (await broker.post("/meta_call", { path, args })).body as {
    is_error: boolean;
    output: {
      content: { type: string; text?: string; mimeType?: string }[];
      structuredContent?: any;
    };
    error?: { kind: string; message: string };
  };
const echoed = async (path: string, args: Record<string, unknown> = {}) => {
  const answer = await call(path, args);
  expect(answer.is_error, JSON.stringify(answer)).toBe(false);
  return answer.output.structuredContent as {
    method: string;
    path: string;
    query: string;
    headers: Record<string, string | undefined>;
    body: string;
  };
};

describe("an OpenAPI document as tools", () => {
  it("mounts one tool per operation, named by operationId or by method and path, with its arguments' schemas", async () => {
    const tree = await broker.post("/meta_tree", { path: "/pets" });
    expect(
      tree.body.children.map((c: { path: string }) => c.path.slice("/pets/".length)).sort(),
    ).toEqual(
      [
        "createPet",
        "deletePet",
        "getMissing",
        "get_pets_petId_photo",
        "goElsewhere",
        "labelled",
        "listPets",
        "showPetById",
        "submitForm",
      ].sort(),
    );
    const create = (await broker.post("/meta_desc", { path: "/pets/createPet" })).body;
    expect(create.args_schema.required).toEqual(["body"]);
    const pet = create.args_schema.properties.body;
    expect(pet.required).toEqual(["name"]);
    // OpenAPI's own keywords are left out, property names kept; the recursion is cut.
    expect(pet.example).toBeUndefined();
    expect(pet["x-internal"]).toBeUndefined();
    expect(Object.keys(pet.properties)).toEqual(["name", "tag", "x-rating", "parent"]);
    expect(pet.properties.parent.type).toBe("object");
    expect(JSON.stringify(pet).length).toBeLessThan(20_000);
    expect(create.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    const list = (await broker.post("/meta_desc", { path: "/pets/listPets" })).body;
    expect(list.summary).toMatch(/^List all pets/);
    expect(list.args_schema.properties.limit).toEqual({
      type: "integer",
      maximum: 100,
      description: "How many at most",
    });
    expect(
      (await broker.post("/meta_desc", { path: "/pets/deletePet" })).body.annotations,
    ).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
  });

  it("serializes every parameter style as OpenAPI says, with the API's key", async () => {
    const got = await echoed("/pets/listPets", {
      limit: 5,
      tags: ["dog", "cat"],
      ids: [1, 2],
      sizes: ["s", "m"],
      colors: ["red", "blue"],
      filter: { kind: "dog", age: 3 },
      "X-Request-Id": "r-1",
      "X-Tags": ["a", "b"],
      session: "s 1",
    });
    expect(got.method).toBe("GET");
    expect(got.path).toBe("/v1/pets");
    expect(new URLSearchParams(got.query).toString()).toBe(
      "limit=5&tags=dog&tags=cat&ids=1%2C2&sizes=s+m&colors=red%7Cblue&filter%5Bkind%5D=dog&filter%5Bage%5D=3",
    );
    expect(got.headers).toMatchObject({
      "x-request-id": "r-1",
      "x-tags": "a,b",
      "x-api-key": "key-123",
      cookie: "session=s%201",
    });
    const labelled = await echoed("/pets/labelled", { label: ["a", "b"], coords: { x: 1, y: 2 } });
    expect(labelled.path).toBe("/v1/labels/.a,b/;x=1;y=2");
  });

  it("keeps every path argument inside its segment: no argument reaches another path, host or parameter", async () => {
    const climbing = await call("/pets/showPetById", { petId: ".." });
    expect(climbing.error?.message).toMatch(/cannot be "\." or "\.\."/);
    const got = await echoed("/pets/showPetById", { petId: "../admin?all=1#x" });
    expect(got.path).toBe("/v1/pets/..%2Fadmin%3Fall%3D1%23x");
    expect(got.query).toBe("");
    const refused = await call("/pets/listPets", { "X-Request-Id": "a\r\nX-Api-Key: stolen" });
    expect(refused.error?.message ?? JSON.stringify(refused)).toMatch(/cannot contain line breaks/);
  });

  it("sends bodies as JSON and as form fields", async () => {
    const created = await echoed("/pets/createPet", { body: { name: "Rex", tag: "dog" } });
    expect([created.method, created.headers["content-type"], JSON.parse(created.body)]).toEqual([
      "POST",
      "application/json",
      { name: "Rex", tag: "dog" },
    ]);
    const form = await echoed("/pets/submitForm", { body: { name: "Rex", tags: ["a", "b"] } });
    expect(form.body).toBe("name=Rex&tags=a&tags=b");
  });

  it("answers an API's error as a tool error with its status and message, an image as an image", async () => {
    const missing = await call("/pets/getMissing", { id: 7 });
    expect(missing.is_error, JSON.stringify(missing)).toBe(true);
    expect(missing.output.content[0]!.text).toBe("HTTP 404: pet 7 not found");
    const photo = await call("/pets/get_pets_petId_photo", { petId: "1" });
    expect(photo.output.content[0]).toMatchObject({ type: "image", mimeType: "image/png" });
  });

  it("follows no redirect to a host the API is not on", async () => {
    const moved = await call("/pets/goElsewhere");
    expect(JSON.stringify(moved)).toMatch(/127\.0\.0\.2.*outside the API's host and allowed_hosts/);
  });

  it("gets the broker's own token by the client credentials flow the document names, once for many calls", async () => {
    const first = await echoed("/secure/listPets");
    const second = await echoed("/secure/listPets");
    expect([first.headers.authorization, second.headers.authorization]).toEqual([
      "Bearer at-1",
      "Bearer at-1",
    ]);
    expect(api.tokensGiven()).toBe(1);
  });

  it("says so when the token URL gives no token", async () => {
    const grant = new ClientCredentialsToken({
      token_url: `${api.url}/oauth/token`,
      client_id: "client-1",
      client_secret: "wrong",
    });
    await expect(grant.token(AbortSignal.timeout(5000))).rejects.toThrow(
      /gave no token \(HTTP 401, invalid_client\)/,
    );
  });

  it("reads Swagger 2.0 from a file: body and csv parameters, basePath, the bearer token", async () => {
    const got = await echoed("/stores/placeOrder", {
      storeId: 3,
      items: ["a", "b"],
      body: { quantity: 2 },
    });
    expect([
      got.method,
      got.path,
      got.query,
      got.headers.authorization,
      JSON.parse(got.body),
    ]).toEqual(["POST", "/v2/stores/3/orders", "items=a%2Cb", "Bearer tok-9", { quantity: 2 }]);
  });
});

describe("OpenAPI documents that cannot be used", () => {
  const start = (spec: string, extra: Record<string, unknown> = {}) =>
    startBroker({
      registry: { predefined: false },
      tree: [
        {
          path: "/api",
          source: { backend: "openapi", spec, base_url: "http://127.0.0.1:9", ...extra },
        },
      ],
    });
  const write = (name: string, text: string) => {
    const file = join(folder, name);
    writeFileSync(file, text);
    return file;
  };

  it("refuse to start, saying why: a missing $ref, no version, not JSON or YAML, not there", async () => {
    const missingRef = write(
      "missing-ref.json",
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "x", version: "1" },
        paths: {
          "/a": { get: { responses: { 200: { $ref: "#/components/responses/Nowhere" } } } },
        },
      }),
    );
    await expect(start(missingRef)).rejects.toThrow(
      /cannot be used: Can't resolve reference: #\/components\/responses\/Nowhere/,
    );
    await expect(start(write("nothing.json", '{"info": {}}'))).rejects.toThrow(
      /no "openapi" \(3\.x\) or "swagger"/,
    );
    await expect(start(write("broken.yaml", "openapi: [3.1\n  : :"))).rejects.toThrow(
      /cannot be used/,
    );
    await expect(start(join(folder, "absent.json"))).rejects.toThrow(/cannot be read \(ENOENT\)/);
  });

  it("mount 10,000 operations up to the source's tool limit, and a cyclic schema without end", async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++)
      paths[`/things/${i}`] = {
        get: { operationId: `getThing${i}`, responses: { 200: { description: "ok" } } },
      };
    const many = write(
      "many.json",
      JSON.stringify({ openapi: "3.1.0", info: { title: "x", version: "1" }, paths }),
    );
    const t0 = performance.now();
    const running = await start(many, { max_tools: 20_000 });
    try {
      expect(performance.now() - t0).toBeLessThan(20_000);
      expect(await everyChild(running.post, "/api")).toHaveLength(10_000);
    } finally {
      await running.close();
    }
  }, 60_000);
});

describe("building a request", () => {
  const operation: Operation = {
    name: "get",
    method: "GET",
    path: "/files/{dir}/{name}",
    title: "",
    description: "",
    parameters: [
      { name: "dir", in: "path", required: true, schema: { type: "string" } },
      { name: "name", in: "path", required: true, schema: { type: "string" } },
      { name: "q", in: "query", required: false, schema: { type: "string" } },
    ],
  };
  const { places } = operationTool(operation);

  it("keeps any argument within its own segment or parameter, on the API's host", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (dir, name, q) => {
        const build = () =>
          buildRequest(operation, places, { dir, name, q }, "https://api.example.com/base", {});
        if ([dir, name].some((v) => v === "." || v === "..")) {
          expect(build).toThrow(/cannot be "\." or "\.\."/);
          return;
        }
        const request = buildRequest(
          operation,
          places,
          { dir, name, q },
          "https://api.example.com/base",
          {},
        );
        expect(request.url.host).toBe("api.example.com");
        const segments = request.url.pathname.split("/");
        expect(segments.slice(0, 3)).toEqual(["", "base", "files"]);
        expect(segments.map(decodeURIComponent)).toEqual(["", "base", "files", dir, name]);
        expect([...request.url.searchParams.keys()]).toEqual(["q"]);
        expect(request.url.searchParams.get("q")).toBe(q);
      }),
    );
  });
});
