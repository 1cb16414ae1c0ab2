import { createContext, useContext } from "react";

/** Lets a screen hand a 5xx, network or unexpected failure to the shell, which shows the retry screen. */
export const FailureContext = createContext<(error: unknown) => void>(() => {});

export function useScreenFailure(): (error: unknown) => void {
  return useContext(FailureContext);
}
