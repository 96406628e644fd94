import { describe, expect, it } from "vitest";
import { bodyBytes, wholeResponse } from "./whole-body.server";

const page = new TextEncoder().encode("<!DOCTYPE html><p>Mañana, غداً</p>");

describe("a page's bytes beside its Response", () => {
  it("are what the server sends, and what anything reading the Response itself gets", async () => {
    expect((await bodyBytes(wholeResponse(page, { status: 200 }))).equals(Buffer.from(page))).toBe(true);
    expect(await wholeResponse(page, { status: 200 }).text()).toBe("<!DOCTYPE html><p>Mañana, غداً</p>");
  });

  it("come from the body of any other Response, or of one copied into another", async () => {
    expect((await bodyBytes(new Response(page))).equals(Buffer.from(page))).toBe(true);
    const copied = new Response(wholeResponse(page, { status: 200 }).body, { status: 201 });
    expect((await bodyBytes(copied)).equals(Buffer.from(page))).toBe(true);
  });
});
