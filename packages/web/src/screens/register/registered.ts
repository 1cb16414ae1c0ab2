/** Where the address of the sign-up just made is kept, so register/complete survives a reload (tab-scoped). */
export const REGISTERED_EMAIL_KEY = "gatehouse.registeredEmail";
