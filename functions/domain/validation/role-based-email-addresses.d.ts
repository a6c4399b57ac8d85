// The package ships plain JavaScript: one exported array of role local parts.
declare module 'role-based-email-addresses' {
  const roles: string[];
  export = roles;
}
