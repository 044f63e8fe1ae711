declare module 'terrarium:provider/lifecycle@0.2.3' {
  /**
   * Whether Terraform has asked the provider to stop since the running call began.
   */
  export function stopping(): boolean;
}
