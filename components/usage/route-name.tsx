import { Fragment } from "react";

/** A route template that may wrap after a slash, never inside a word (`GET /users/{username}`). */
export function RouteName({ route }: { route: string }) {
  const parts = route.split("/");
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 ? (
            <>
              /<wbr />
            </>
          ) : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
