import PatchEngine
print(PatchEngine.smoke())
