import { describe, expect, it } from "vitest";
import { Prerequisites } from "../../src/tool-search/prerequisites.js";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";

function tool(path: string, requiredParameters: string[] = []): SearchableTool {
  const name = path.split("/").at(-1)!;
  return { path, name, description: "", parameters: "", context: "", requiredParameters };
}

describe("Prerequisites", () => {
  const movies = [
    tool("/tmdb/search_movie", ["query"]),
    tool("/tmdb/search_multi_movie_tv", ["query"]),
    tool("/tmdb/movie_credits", ["movie_id"]),
    tool("/tmdb/movie_similar", ["movieId", "page"]),
    tool("/tmdb/person_images", ["person_id"]),
    tool("/tmdb/listPersons"),
  ];

  it("names, for each id a tool requires, the tool of its node that finds that thing", () => {
    const prerequisites = new Prerequisites();
    for (const t of movies) prerequisites.put(t);
    expect(prerequisites.of("/tmdb/movie_credits")).toEqual([
      // Of two searches for movies, the one whose name says least else.
      { path: "/tmdb/search_movie", parameter: "movie_id" },
    ]);
    expect(prerequisites.of("/tmdb/movie_similar")).toEqual([
      { path: "/tmdb/search_movie", parameter: "movieId" },
    ]);
    expect(prerequisites.of("/tmdb/person_images")).toEqual([
      { path: "/tmdb/listPersons", parameter: "person_id" },
    ]);
    expect(prerequisites.of("/tmdb/search_movie")).toEqual([]);
  });

  it("needs nothing for an optional id, for a finder elsewhere or one requiring the id itself", () => {
    const prerequisites = new Prerequisites();
    for (const t of [
      { ...tool("/a/get_issue"), parameters: "issue_id" },
      tool("/a/list_issues"),
      tool("/b/get_repo", ["repo_id"]),
      tool("/c/list_repos"),
      tool("/b/search_repo_files", ["repo_id"]),
    ])
      prerequisites.put(t);
    expect(prerequisites.of("/a/get_issue")).toEqual([]);
    expect(prerequisites.of("/b/get_repo")).toEqual([]);
  });

  it("follows the tools as they change and go", () => {
    const prerequisites = new Prerequisites();
    for (const t of movies) prerequisites.put(t);
    prerequisites.remove("/tmdb/search_movie");
    expect(prerequisites.of("/tmdb/movie_credits")).toEqual([
      { path: "/tmdb/search_multi_movie_tv", parameter: "movie_id" },
    ]);
    prerequisites.put(tool("/tmdb/search_multi_movie_tv", ["movie_id"]));
    expect(prerequisites.of("/tmdb/movie_credits")).toEqual([]);
    prerequisites.remove("/tmdb/movie_credits");
    expect(prerequisites.of("/tmdb/movie_credits")).toEqual([]);
  });
});
