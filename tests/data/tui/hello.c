int add(int a, int b)
{
	return a + b;
}

int twice(int a)
{
	return add(a, a);
}

int main(void)
{
	return add(1, 2) + twice(3);
}
