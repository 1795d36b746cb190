// runtime
