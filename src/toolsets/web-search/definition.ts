import { builtinDefinition } from "../builtin-toolset.js";

/** The search tool of the tool registry protocol's predefined tool contracts, as written there. */
export const SEARCH_TOOL = builtinDefinition({
  name: "search_tool",
  description: "Web search and information retrieval",
  category: "SEARCH",
  functions: [
    {
      name: "web_search",
      description:
        "Search the internet for information (max_results 1 to 20); answers with title, url and snippet of each result.",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string" },
          max_results: { type: "integer", default: 5 },
        },
        required: ["query"],
      },
    },
    {
      name: "news_search",
      description: "Search for recent news articles, published within days_back days.",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string" },
          days_back: { type: "integer", default: 7 },
        },
        required: ["query"],
      },
    },
  ],
});
